"""A stand-in for the controllers' OpenTelemetry instrumenter (``internal/metrics`` upstream).

The #508 load test ran with ``--enable-tracing=true``: every reconcile starts a span, and an object that has
no ``opentelemetry.io/trace-context`` annotation gets one written by a merge patch. Only that write matters
to the API traffic, so this tracer just produces a deterministic W3C trace context per object.
"""

from __future__ import annotations

import json

from fakekube.agentsandbox.hashing import fnv1a_32, numeric_hash


class Tracer:
    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._contexts: dict[str, str] = {}  # uid -> its context (a pure function of the uid, asked per pass)

    def trace_context(self, uid: str, existing: str | None = None) -> str:
        """The trace context of the span started for an object; empty when tracing is off."""
        if not self.enabled:
            return ""
        if existing:
            return existing
        context = self._contexts.get(uid)
        if context is None:
            # The sums of uid + "/t" and uid + "/s", each going on from the uid's own sum.
            base = numeric_hash(uid)
            trace = f"{base:08x}{fnv1a_32(b'/t', base):08x}" * 2
            span = f"{fnv1a_32(b'/s', base):08x}" * 2
            context = self._contexts[uid] = json.dumps({"traceparent": f"00-{trace}-{span}-01"},
                                                       separators=(",", ":"))
        return context
