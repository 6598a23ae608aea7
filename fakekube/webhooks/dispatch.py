"""Calling the admission webhooks a request matches: k8s.io/apiserver
``pkg/admission/plugin/webhook/{mutating,validating}/dispatcher.go`` and ``errors/statuserror.go`` (v0.37.2).

Mutating webhooks run one after the other, each on the object the previous one patched (a JSON patch), with one
reinvocation round for ``reinvocationPolicy: IfNeeded`` webhooks a later webhook's change concerns; validating
webhooks run in parallel and the first refusal (in webhook order here; in completion order upstream) answers.
A refusal is the webhook's Status, worded by ``ToStatusErr``; a webhook that cannot be called fails the request
(a 500 ``failed calling webhook ...``) or is skipped, as its ``failurePolicy`` says; a dry run reaches only
webhooks whose ``sideEffects`` are ``None`` or ``NoneOnDryRun``. Audit annotations, warnings and the
``mutation.``/``patch.webhook.admission.k8s.io/round_<r>_index_<i>`` annotations go to the request's Attributes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any

from fakekube import errors
from fakekube.gotext import go_quote
from fakekube.jsonvalues import json_copy
from fakekube.patch.json_patch import apply_json_patch
from fakekube.webhooks import transport
from fakekube.webhooks.matching import Hook, Invocation, should_call
from fakekube.webhooks.review import Attributes, ResponseError, admission_review, verify_response

PATCH_PREFIX = "patch.webhook.admission.k8s.io/"
MUTATION_PREFIX = "mutation.webhook.admission.k8s.io/"
FAILED_OPEN_MUTATION = "failed-open." + MUTATION_PREFIX
FAILED_OPEN_VALIDATING = "failed-open.validating.webhook.admission.k8s.io/"
MAX_TIMEOUT = 30  # validation's bound on timeoutSeconds; also the client's absolute timeout

Caller = Callable[[transport.Endpoint, "bytes | None", dict[str, Any], float], Any]


class Rejection(Exception):
    """``ErrWebhookRejection``: the webhook answered, and said no."""

    def __init__(self, status: errors.ApiError) -> None:
        super().__init__(status.message)
        self.status = status


def status_error(name: str, result: dict[str, Any] | None) -> errors.ApiError:
    """``ToStatusErr``: the webhook's Status with the code at least 400 and the message prefixed."""
    result = dict(result or {})
    code = result.get("code") if isinstance(result.get("code"), int) else 0
    if code < 400:
        code = 400
    denied = f"admission webhook {go_quote(name)} denied the request"
    message, reason = str(result.get("message") or ""), str(result.get("reason") or "")
    if message:
        text = f"{denied}: {message}"
    elif reason:
        text = f"{denied}: {reason}"
    else:
        text = f"{denied} without explanation"
    details = result.get("details") if isinstance(result.get("details"), dict) else None
    return errors.ApiError(code, reason, text, details)


def internal(text: str) -> errors.ApiError:
    """apimachinery ``NewInternalError``."""
    return errors.ApiError(500, "InternalError", f"Internal error occurred: {text}", {"causes": [{"message": text}]})


class Rounds:
    """The webhooks' reinvocation context across the admission chain's two rounds."""

    def __init__(self) -> None:
        self.previously: set[str] = set()
        self.again: set[str] = set()
        self.last_output: Any = None

    def require_again(self) -> None:
        self.again |= self.previously
        self.previously = set()


class Dispatcher:
    """One request's webhook calls. ``versions``: converts the request's object to an invocation's version and
    back (``to(inv, obj)``, ``back(inv, obj)``); ``unlocked``: a context in which the store's lock is let go."""

    def __init__(self, attr: Attributes, hooks: list[Hook], equivalents: list[tuple[str, str, str, str]],  # noqa: PLR0913
                 namespace_labels: Callable[[str], dict[str, str] | None],
                 to_version: Callable[[Invocation, Any], Any], from_version: Callable[[Invocation, Any], Any],
                 services: transport.ServiceMap, caller: Caller,
                 unlocked: Callable[[], AbstractContextManager[None]], uids: Iterator[str],
                 default: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.attr = attr
        self.hooks = hooks
        self.equivalents = equivalents
        self.namespace_labels = namespace_labels
        self.to_version = to_version
        self.from_version = from_version
        self.services = services
        self.caller = caller
        self.unlocked = unlocked
        self.uids = uids
        self.default = default

    def _versioned(self, invocation: Invocation) -> tuple[Any, Any]:
        return self.to_version(invocation, self.attr.obj), self.to_version(invocation, self.attr.old)

    def _match(self, hook: Hook) -> Invocation | None:
        return should_call(hook, self.attr, self.equivalents, self.namespace_labels, self._versioned)

    # -- the call ------------------------------------------------------------------------------------------

    def _review_version(self, spec: dict[str, Any]) -> str:
        versions = spec.get("admissionReviewVersions") or []
        for version in versions:
            if version in ("v1", "v1beta1"):
                return str(version)
        return "v1"

    def _call(self, invocation: Invocation, mutating: bool) -> Any:
        """Call one webhook; its verified response, or ``transport.CallError``/``Rejection``/ApiError."""
        spec = invocation.hook.spec
        name = invocation.hook.name
        if self.attr.dry_run and spec.get("sideEffects") not in ("None", "NoneOnDryRun"):
            if spec.get("sideEffects") is None:
                raise transport.CallError("Webhook SideEffects is nil", errors.BadRequest("Webhook SideEffects is nil"))
            raise errors.BadRequest(f"admission webhook {go_quote(name)} does not support dry run")
        uid = next(self.uids)
        version = self._review_version(spec)
        obj, old = self._versioned(invocation)
        review = admission_review(uid, self.attr, (invocation.group, invocation.version, invocation.resource,
                                                   invocation.kind), version, obj, old)
        timeout = spec.get("timeoutSeconds")
        timeout = min(int(timeout), MAX_TIMEOUT) if isinstance(timeout, int) and timeout > 0 else MAX_TIMEOUT
        config = spec.get("clientConfig") or {}
        point = transport.endpoint(config, self.services, timeout)
        ca = config.get("caBundle")
        ca_bytes = _ca_bytes(ca)
        answer = self.caller(point, ca_bytes, review, float(timeout))
        try:
            result = verify_response(uid, mutating, version, answer)
        except ResponseError as exc:
            raise transport.CallError(f"received invalid webhook response: {exc}",
                                      errors.ServiceUnavailable("error validating webhook response")) from None
        for key, value in result.audit_annotations.items():
            self.attr.annotations.setdefault(f"{name}/{key}", value)
        self.attr.warnings.extend(result.warnings)
        if not result.allowed:
            raise Rejection(status_error(name, result.result))
        return result

    # -- mutating ------------------------------------------------------------------------------------------

    def mutate(self, rounds: Rounds | None = None, round_: int = 0) -> bool:
        """Run the mutating webhooks on ``attr.obj`` (patched in place); whether any changed it.

        Without ``rounds``, both of the admission chain's rounds (apiserver ``pkg/admission/reinvocation.go``)
        are run here: the second when a webhook changed the object, calling again the ``IfNeeded`` webhooks
        called before that change. With ``rounds`` (shared with the caller, which runs other mutating plugins
        between the rounds), one round: ``round_`` 1 calls only the webhooks due again, and those called with
        ``IfNeeded`` when the object changed since the webhooks last saw it (webhook/mutating/dispatcher.go,
        ``webhookReinvokeContext``)."""
        if rounds is None:
            rounds = Rounds()
            changed = self.mutate(rounds, 0)
            if changed and rounds.again:
                self.mutate(rounds, 1)
            return changed
        if round_ == 1 and rounds.last_output != self.attr.obj:
            rounds.require_again()
        changed_any = False
        for index, hook in enumerate(self.hooks):
            if round_ == 1 and hook.uid not in rounds.again:
                continue
            changed = self._mutate_one(hook, index, round_)
            if changed is None:
                continue
            if changed:
                changed_any = True
                rounds.require_again()
            if hook.spec.get("reinvocationPolicy") == "IfNeeded":
                rounds.previously.add(hook.uid)
        rounds.last_output = json_copy(self.attr.obj) if self.attr.obj is not None else None
        return changed_any

    def _mutate_one(self, hook: Hook, index: int, round_: int) -> bool | None:
        """One mutating webhook: None when it is not called, else whether it changed the object."""
        invocation = self._match(hook)
        if invocation is None:
            return None
        name = hook.name
        spec = hook.spec
        changed = False
        try:
            with self.unlocked():
                result = self._call(invocation, True)
            if not result.patch:
                return False
            changed = self._apply_patch(invocation, result, f"round_{round_}_index_{index}")
            return changed
        except transport.CallError as exc:
            if spec.get("failurePolicy") == "Ignore":
                self.attr.annotations[f"{FAILED_OPEN_MUTATION}round_{round_}_index_{index}"] = name
                return False
            raise internal(f"failed calling webhook {go_quote(name)}: {exc.reason}") from None
        except Rejection as exc:
            raise exc.status from None
        finally:
            self.attr.annotations[f"{MUTATION_PREFIX}round_{round_}_index_{index}"] = json.dumps(
                {"configuration": hook.configuration, "webhook": name, "mutated": changed}, separators=(",", ":"))

    def _apply_patch(self, invocation: Invocation, result: Any, key: str) -> bool:
        name = invocation.hook.name
        try:
            ops = json.loads(result.patch)
        except ValueError as exc:
            raise transport.CallError(f"received undecodable patch in webhook response: {exc}",
                                      errors.ServiceUnavailable("error decoding patch in webhook response")) from None
        if not isinstance(ops, list):
            raise transport.CallError("received undecodable patch in webhook response: json: cannot unmarshal "
                                      "object into Go value of type jsonpatch.Patch",
                                      errors.ServiceUnavailable("error decoding patch in webhook response"))
        if not ops:
            return False
        if self.attr.obj is None:
            raise internal(f"admission webhook {go_quote(name)} attempted to modify the object, which is not "
                           "supported for this operation")
        if result.patch_type != "JSONPatch":
            raise transport.CallError(f"unsupported patch type {go_quote(result.patch_type)}",
                                      status_error(name, result.result))
        before = self.to_version(invocation, self.attr.obj)
        try:
            patched = apply_json_patch(before, ops, raw_body=result.patch.decode("utf-8", "replace"))
        except errors.ApiError as exc:
            raise internal(exc.message or "the patch could not be applied") from None
        if not isinstance(patched, dict):
            raise internal("Object 'Kind' is missing in the patched object")
        changed = patched != before
        new = self.from_version(invocation, patched)
        if self.default is not None:
            self.default(new)
        # In place, the metadata dict too: the write holds references to both.
        target = self.attr.obj
        meta, new_meta = target.get("metadata"), new.get("metadata")
        target.clear()
        target.update(new)
        if isinstance(meta, dict) and isinstance(new_meta, dict):
            meta.clear()
            meta.update(new_meta)
            target["metadata"] = meta
        # (upstream logs it at level Request and above; fakekube keeps it whatever the level)
        self.attr.annotations[PATCH_PREFIX + key] = json.dumps(
            {"configuration": invocation.hook.configuration, "webhook": name, "patch": ops, "patchType": "JSONPatch"},
            separators=(",", ":"))
        return changed

    # -- validating ----------------------------------------------------------------------------------------

    def validate(self) -> None:
        """Run the validating webhooks; raise the first refusal."""
        invocations = [inv for inv in (self._match(hook) for hook in self.hooks) if inv is not None]
        if not invocations:
            return
        with self.unlocked():
            if len(invocations) == 1:
                outcomes = [self._validate_one(invocations[0], 0)]
            else:
                with ThreadPoolExecutor(max_workers=min(len(invocations), 16)) as pool:
                    outcomes = list(pool.map(self._validate_one, invocations, range(len(invocations))))
        for outcome in outcomes:
            if outcome is not None:
                raise outcome

    def _validate_one(self, invocation: Invocation, index: int) -> errors.ApiError | None:
        spec = invocation.hook.spec
        try:
            self._call(invocation, False)
        except transport.CallError as exc:
            if spec.get("failurePolicy") == "Ignore":
                self.attr.annotations[f"{FAILED_OPEN_VALIDATING}round_0_index_{index}"] = invocation.hook.name
                return None
            return internal(f"failed calling webhook {go_quote(invocation.hook.name)}: {exc.reason}")
        except Rejection as exc:
            return exc.status
        except errors.ApiError as exc:
            return exc
        return None


def _ca_bytes(ca: Any) -> bytes | None:
    import base64
    import binascii

    if not ca:
        return None
    if isinstance(ca, bytes):
        return ca
    try:
        return base64.b64decode(str(ca), validate=True)
    except (binascii.Error, ValueError):
        return None


def copy_or_none(obj: Any) -> Any:
    return json_copy(obj) if obj is not None else None
