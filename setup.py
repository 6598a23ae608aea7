"""The one packaging fact pyproject.toml cannot state: the agent-sandbox ports live in ``reconcilers/`` in the
repository but install as ``fakekube.agentsandbox`` (nothing named ``reconcilers`` lands in a user's
environment, where a project of their own may own that name). Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["fakekube", "fakekube.*"]), "fakekube.agentsandbox"],
    package_dir={"fakekube.agentsandbox": "reconcilers"},
)
