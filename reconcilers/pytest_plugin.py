"""pytest fixtures for an agent-sandbox environment on fakekube.sim, opt-in: a test suite that wants them says
``pytest_plugins = ["fakekube.agentsandbox.pytest_plugin"]`` in its top-level conftest.py (or runs pytest with
``-p fakekube.agentsandbox.pytest_plugin``). fakekube's ``pytest11`` entry point loads only the generic fixtures.

- ``agent_sandbox_env_factory``: ``factory(seed=1, strategies=WriteStrategies(...), flags=..., model=...)``
  builds a simulation with the four CRDs, the claim, sandbox, warm-pool and template controllers, a kubelet
  and a garbage collector (not yet run).
- ``agent_sandbox_env``: one such environment with defaults (the build PR #508's tables came from, tracing on;
  ``factory(build="26288535")`` for main as of 2026-04-02).
- ``agent_sandbox_namespace``: ``"default"`` plus a ready-made template in it (``sandbox_template``).
- ``run_scenario`` re-exported as the ``agent_sandbox_scenario`` fixture for load-recipe runs.

Everything is function-scoped: a fresh cluster per test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.env import AgentSandboxEnv, build_env
from fakekube.agentsandbox.scenarios import LoadParams, run_scenario, template_object

__all__ = ["agent_sandbox_env", "agent_sandbox_env_factory", "agent_sandbox_scenario", "sandbox_template"]


@pytest.fixture
def agent_sandbox_env_factory() -> Callable[..., AgentSandboxEnv]:
    return build_env


@pytest.fixture
def agent_sandbox_env(agent_sandbox_env_factory: Callable[..., AgentSandboxEnv]) -> AgentSandboxEnv:
    return agent_sandbox_env_factory(seed=1)


@pytest.fixture
def sandbox_template(agent_sandbox_env: AgentSandboxEnv) -> dict[str, Any]:
    """The load test's template (python:3.11-slim) created in ``default`` as ``sandbox-template``."""
    params = LoadParams(burst_size=1, qps=1, total_bursts=1, warmpool_size=0, namespace="default",
                        template="sandbox-template")
    return agent_sandbox_env.store.create(keys.TEMPLATES, template_object(params), actor="test")


@pytest.fixture
def agent_sandbox_scenario() -> Callable[..., Any]:
    """``agent_sandbox_scenario("seed-timeline", WriteStrategies("patch"), seed=3)`` → a finished run."""
    return run_scenario
