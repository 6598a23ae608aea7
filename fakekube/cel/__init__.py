"""CEL for CustomResourceDefinition validation rules (``x-kubernetes-validations``).

The expression language itself is Google's cel-cpp through ``cel-expr-python`` (docs/dependencies.md, "CEL"):
its parser and type checker word compile errors as cel-go does (the same ANTLR grammar and checker
messages). On top of it:

- ``types``: a structural schema node as a CEL type, and a value as CEL sees it (escaped property names,
  ``date-time``/``duration``/``byte`` strings as timestamps, durations and bytes), after
  k8s.io/apiserver ``pkg/cel/common/schemas.go`` and ``pkg/cel/escaping.go`` (v0.37.2);
- ``library``: the Kubernetes CEL library functions rules use (lists, regex), after k8s.io/apiserver
  ``pkg/cel/library`` (v0.37.2); ``k8slib``: its URL, IP, CIDR and quantity types;
- ``fields``: the type checks an object that is a ``map(string, dyn)`` here needs (undefined fields, member
  types, ``matches`` literals);
- ``env``: one environment per rule's variable types;
- ``fieldpath``: a rule's ``fieldPath`` (and a selectable field's ``jsonPath``) checked against the schema;
- ``rules``: compiling a schema's rules (``compile_rule``) with upstream's error texts;
- ``validator``: running them on a custom resource, with ``oldSelf``, ratcheting and the 422 causes.
"""
