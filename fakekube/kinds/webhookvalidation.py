"""Validation of Validating/MutatingWebhookConfiguration webhooks: the part kubernetes
``pkg/apis/admissionregistration/validation/validation.go`` (v1.37.2) ``validateValidatingWebhook``,
``validateMutatingWebhook``, ``validateAdmissionReviewVersions`` and apiserver ``pkg/util/webhook/validation.go``
``ValidateWebhookURL``/``ValidateWebhookService`` check that admission depends on: rule operations, failure,
match and reinvocation policies, sideEffects (only ``None``/``NoneOnDryRun`` in v1, unless the stored
configuration already had others), timeoutSeconds, the client config, review versions, unique names.
Not checked here yet: the webhook name's form, rule groups/resources, selectors' syntax, match conditions."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from fakekube.errors import FieldError, duplicate, invalid, not_supported, required

_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
_NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"]
_SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"]
_REVIEW_VERSIONS = ["v1", "v1beta1"]
_FORM = "; desired format: https://host[/path]"


def _hooks(obj: dict[str, Any] | None) -> list[dict[str, Any]]:
    hooks = (obj or {}).get("webhooks")
    return [h for h in hooks if isinstance(h, dict)] if isinstance(hooks, list) else []


def validate_webhooks(obj: dict[str, Any], old: dict[str, Any] | None, *, mutating: bool) -> list[FieldError]:
    old_hooks = _hooks(old) if old is not None else None
    no_side_effects = old_hooks is None or all(h.get("sideEffects") in _NO_SIDE_EFFECTS for h in old_hooks)
    recognized = old_hooks is None or all(
        any(v in _REVIEW_VERSIONS for v in h.get("admissionReviewVersions") or []) for h in old_hooks)
    unique = old_hooks is None or len({h.get("name") for h in old_hooks}) == len(old_hooks)
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, hook in enumerate(_hooks(obj)):
        path = f"webhooks[{i}]"
        errs += _hook(hook, path, mutating, no_side_effects)
        errs += _review_versions(hook.get("admissionReviewVersions"), recognized, f"{path}.admissionReviewVersions")
        name = hook.get("name")
        if unique and isinstance(name, str) and name:
            if name in names:
                errs.append(duplicate(f"{path}.name", name))
            names.add(name)
    return errs


def _hook(hook: dict[str, Any], path: str, mutating: bool, no_side_effects: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    for r, rule in enumerate(hook.get("rules") or []):
        if not isinstance(rule, dict):
            continue
        ops = rule.get("operations") or []
        where = f"{path}.rules[{r}].operations"
        if not ops:
            errs.append(required(where, ""))
        if len(ops) > 1 and "*" in ops:
            errs.append(invalid(where, ops, "if '*' is present, must not specify other operations"))
        for o, op in enumerate(ops):
            if op not in _OPERATIONS:
                errs.append(not_supported(f"{where}[{o}]", op, _OPERATIONS))
    policy = hook.get("failurePolicy")
    if policy is not None and policy not in ("Fail", "Ignore"):
        errs.append(not_supported(f"{path}.failurePolicy", policy, ["Fail", "Ignore"]))
    match = hook.get("matchPolicy")
    if match is not None and match not in ("Equivalent", "Exact"):
        errs.append(not_supported(f"{path}.matchPolicy", match, ["Equivalent", "Exact"]))
    allowed = _NO_SIDE_EFFECTS if no_side_effects else _SIDE_EFFECTS
    side = hook.get("sideEffects")
    if side is None:
        errs.append(required(f"{path}.sideEffects", f"must specify one of {', '.join(allowed)}"))
    elif side not in allowed:
        errs.append(not_supported(f"{path}.sideEffects", side, allowed))
    timeout = hook.get("timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        errs.append(invalid(f"{path}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"))
    if mutating:
        again = hook.get("reinvocationPolicy")
        if again is not None and again not in ("IfNeeded", "Never"):
            errs.append(not_supported(f"{path}.reinvocationPolicy", again, ["IfNeeded", "Never"]))
    errs += _client_config(hook.get("clientConfig") or {}, f"{path}.clientConfig")
    return errs


def _client_config(cc: dict[str, Any], path: str) -> list[FieldError]:
    url, service = cc.get("url"), cc.get("service")
    if (url is None) == (service is None):
        return [required(path, "exactly one of url or service is required")]
    errs: list[FieldError] = []
    if url is not None:
        where = f"{path}.url"
        parts = urlsplit(str(url))
        if parts.scheme != "https":
            errs.append(invalid(where, parts.scheme, "'https' is the only allowed URL scheme" + _FORM))
        if not parts.netloc:
            errs.append(invalid(where, "", "host must be specified" + _FORM))
        if parts.username is not None:
            user = parts.netloc.rpartition("@")[0]
            errs.append(invalid(where, user, "user information is not permitted in the URL"))
        if parts.fragment:
            errs.append(invalid(where, parts.fragment, "fragments are not permitted in the URL"))
        if parts.query:
            errs.append(invalid(where, parts.query, "query parameters are not permitted in the URL"))
        return errs
    where = f"{path}.service"
    if isinstance(service, dict):
        if not service.get("name"):
            errs.append(required(f"{where}.name", ""))
        if not service.get("namespace"):
            errs.append(required(f"{where}.namespace", ""))
        port = service.get("port")
        if isinstance(port, int) and not 1 <= port <= 65535:
            errs.append(invalid(f"{where}.port", port, "port is not valid: must be between 1 and 65535, inclusive"))
    return errs


def _review_versions(versions: Any, recognized: bool, path: str) -> list[FieldError]:
    versions = versions if isinstance(versions, list) else []
    if not versions:
        return [required(path, f"must specify one of {', '.join(_REVIEW_VERSIONS)}")]
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, version in enumerate(versions):
        if version in seen:
            errs.append(invalid(f"{path}[{i}]", version, "duplicate version"))
            continue
        seen.add(version)
    if recognized and not any(v in _REVIEW_VERSIONS for v in versions):
        errs.append(invalid(path, versions, f"must include at least one of {', '.join(_REVIEW_VERSIONS)}"))
    return errs
