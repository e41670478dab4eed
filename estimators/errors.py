"""The one exception type of the estimators package."""

import math
import sys


class EstimatorError(ValueError):
    """A value outside an estimator's domain.

    The message names the argument, the value and what is allowed, so that a
    build error, a CLI error and a widget field error all read the same.
    """

    def __init__(self, argument: str, value: object, allowed: str):
        self.argument = argument
        self.value = value
        self.allowed = allowed
        super().__init__(f"{argument} = {value!r} is not allowed: {allowed}")

    def on_command_line(self, options: dict, typed: dict) -> str:
        """The message as a command line reads it, naming the option as typed: `options` maps each
        argument an option sets to (option, its value as typed or by default), `typed` holds the
        options typed ({option: text}). An argument no option sets is a result the options computed:
        a non-finite one overflowed, past the largest float."""
        if self.argument in options:
            option, text = options[self.argument]
            return f"{option} {text} is not allowed: {self.allowed}"
        shown = ", ".join(f"{option} {text}" for option, text in typed.items())
        if isinstance(self.value, float) and not math.isfinite(self.value):
            mantissa, exponent = f"{sys.float_info.max:.1e}".split("e")
            return f"{shown}: the result is too large to compute (at most {mantissa}e{int(exponent)}): smaller values"
        return f"{shown}: not allowed together: {self.allowed}"
