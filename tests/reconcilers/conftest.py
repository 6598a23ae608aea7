"""The agent-sandbox fixtures come from the ``reconcilers.pytest_plugin`` pytest11 entry point
(pyproject.toml); nothing to configure here."""
