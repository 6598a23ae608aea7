"""The agent-sandbox fixtures are opted into by the repository's conftest.py
(``pytest_plugins = ["fakekube.agentsandbox.pytest_plugin"]``), as a user of them would."""
