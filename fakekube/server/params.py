"""Query parameters, parsed the way the real API server's parameter codec does.

Booleans follow Go's ``strconv.ParseBool`` (``1 t T TRUE true True``, ...) and more leniently any case, since
kubernetes_asyncio sends ``watch=True``; a value that is not a bool is a 400, as a decoding error is upstream.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from fakekube import errors

_TRUE = {"1", "t", "true"}
_FALSE = {"0", "f", "false"}


class Query:
    """Read access to a request's query string; repeated parameters keep their first value."""

    def __init__(self, query: str) -> None:
        self._values = parse_qs(query, keep_blank_values=True)

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def str(self, name: str) -> str | None:
        values = self._values.get(name)
        return values[0] if values else None

    def all(self, name: str) -> list[str]:
        return list(self._values.get(name, ()))

    def bool(self, name: str, default: bool | None = False) -> bool | None:
        value = self.str(name)
        if value is None or value == "":
            return default
        lowered = value.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise errors.BadRequest(f'invalid value for {name}: strconv.ParseBool: parsing "{value}": invalid syntax')

    def int(self, name: str) -> int | None:
        value = self.str(name)
        if value is None or value == "":
            return None
        try:
            return int(value)
        except ValueError:
            raise errors.BadRequest(
                f'invalid value for {name}: strconv.ParseInt: parsing "{value}": invalid syntax'
            ) from None

    def dry_run(self, options_kind: str) -> bool:
        return dry_run_values(self.all("dryRun"), options_kind)


def dry_run_values(values: list[str] | None, options_kind: str) -> bool:
    """``dryRun`` accepts only ``All`` (apimachinery ``ValidateDryRun``): anything else is a 422 about the
    request's options (``CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["x"]...``, the
    whole list as the value), as the handlers' ``Validate<Verb>Options`` report it."""
    values = list(values or [])
    if any(value != "All" for value in values):
        raise errors.Invalid(options_kind, "meta.k8s.io", "", [errors.not_supported("dryRun", values, ["All"])])
    return bool(values)
