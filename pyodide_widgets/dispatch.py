"""The worker's one entry point: JSON text in, JSON text out.

Strings cross the worker boundary instead of Python proxies, so nothing is
left for Pyodide's proxy registry to hold on to.
"""

import json

from estimators.errors import EstimatorError

from . import module


def handle(request: str) -> str:
    """{"widget", "state"} -> {"outputs", "data"} or {"error": {"field", "message"}}."""
    message = json.loads(request)
    try:
        result = module(message["widget"]).update(message["state"])
    except EstimatorError as error:
        result = {"error": {"field": error.argument, "message": f"Must be {error.allowed}."}}
    return json.dumps(result, allow_nan=False)
