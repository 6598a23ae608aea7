# The plugin is registered as a pytest11 entry point once the package metadata lists it; until then (and
# for runs from a source tree) load it explicitly.
pytest_plugins = ["reconcilers.pytest_plugin"]
