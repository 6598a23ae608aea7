"""Validating admission by policy: ValidatingAdmissionPolicy and its bindings enforced on writes.

After k8s.io/apiserver ``pkg/admission/plugin/policy/`` (v0.37.2): ``generic`` (which policies and bindings are
in force, their parameters), ``matching`` (matchConstraints and a binding's matchResources) and ``validating``
(the CEL evaluation and the decisions). The store calls ``fakekube.admission.policy.admit`` from its write
path after the object passed validation and before it is stored, as the registry's ``createValidation`` /
``updateValidation`` do in ``pkg/registry/generic/registry/store.go``.

- ``attributes``: one request as admission sees it (``admission.Attributes``) and the CEL ``request`` value;
- ``matching``: resource rules, selectors, exclusions, matchPolicy;
- ``policycel``: compiling a policy's expressions and evaluating them for one request;
- ``policy``: the dispatcher — policies, bindings, params, decisions, the refusal, warnings and annotations.
"""
