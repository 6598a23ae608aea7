"""The one packaging fact pyproject.toml cannot state: the agent-sandbox ports live in ``reconcilers/`` in the
repository but install as ``fakekube.agentsandbox`` (nothing named ``reconcilers`` lands in a user's
environment, where a project of their own may own that name). Everything else is in pyproject.toml."""

from setuptools import find_namespace_packages, setup

setup(
    # Namespace packages count (fakekube/cluster/controllers has no __init__.py), as pyproject's find did;
    # crds/ is data (package-data "*.yaml"), listed so setuptools does not warn about an unlisted namespace.
    packages=[*find_namespace_packages(include=["fakekube", "fakekube.*"], exclude=["*.__pycache__"]),
              "fakekube.agentsandbox", "fakekube.agentsandbox.crds"],
    package_dir={"fakekube.agentsandbox": "reconcilers"},
)
