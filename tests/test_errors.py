from __future__ import annotations

from fakekube import errors


def test_invalid_aggregates_causes_like_upstream() -> None:
    single = errors.Invalid("Widget", "example.com", "w", [errors.required("spec.size")])
    assert single.message == 'Widget.example.com "w" is invalid: spec.size: Required value'
    many = errors.Invalid("Pod", "", "p", [
        errors.invalid("metadata.name", "Bad", "must be lower case"),
        errors.not_supported("spec.restartPolicy", "Sometimes", ["Always", "Never"]),
        errors.invalid("metadata.name", "Bad", "must be lower case"),
    ])
    assert many.message == (
        'Pod "p" is invalid: [metadata.name: Invalid value: "Bad": must be lower case, spec.restartPolicy: '
        'Unsupported value: "Sometimes": supported values: "Always", "Never"]'
    )
    assert many.status["details"]["causes"][1] == {
        "reason": "FieldValueNotSupported", "field": "spec.restartPolicy",
        "message": 'Unsupported value: "Sometimes": supported values: "Always", "Never"'}
    assert many.status["details"]["kind"] == "Pod" and "group" not in many.status["details"]


def test_values_render_like_go() -> None:
    assert errors.invalid("f", 0, "x").body == "Invalid value: 0: x"
    assert errors.invalid("f", True, "x").body == "Invalid value: true: x"
    assert errors.invalid("f", {"b": 1, "a": [1]}, "x").body == 'Invalid value: {"a":[1],"b":1}: x'


def test_status_round_trip_and_codes() -> None:
    err = errors.Conflict("sandboxclaims", "extensions.agents.x-k8s.io", "c")
    again = errors.from_status(err.status)
    assert (again.code, again.reason, again.message) == (409, "Conflict", err.message)
    assert errors.error_for_code(503).status["reason"] == "ServiceUnavailable"
    assert errors.UnsupportedMediaType(["application/json-patch+json"]).status["code"] == 415
    assert errors.InternalError("boom").status.get("reason") is None


def test_names_in_messages_are_go_quoted() -> None:
    # apimachinery pkg/api/errors/errors.go formats the name with %q, so a tab is escaped ("de\tmo"); observed
    # on kube-apiserver v1.37.2 for a Service named "de<TAB>mo".
    bad = errors.invalid("metadata.name", "x", "y")
    assert errors.Invalid("Service", "", "de\tmo", [bad]).message.startswith('Service "de\\tmo" is invalid: ')
    assert errors.NotFound("services", "", 'a"b').message == 'services "a\\"b" not found'
    assert errors.AlreadyExists("services", "", "a\nb").message == 'services "a\\nb" already exists'
