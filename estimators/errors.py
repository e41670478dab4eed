"""The one exception type of the estimators package."""


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
