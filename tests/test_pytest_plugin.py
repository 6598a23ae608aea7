"""The plugin is loaded through the ``pytest11`` entry point: a test file needs no conftest."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


@pytest.mark.slow
def test_fixtures_are_available_without_conftest(pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from fakekube import errors

        def test_kube(kube):
            kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
            assert kube.count("configmaps") == 1

        def test_fresh_store_per_test(kube):
            assert kube.count("configmaps") == 0

        def test_factory(kube_factory):
            store = kube_factory(require_namespaces=False, seed=1)
            store.create("configmaps", {"metadata": {"name": "c"}}, "anywhere")

        def test_manifests(kube, load_manifests):
            load_manifests('''
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: from-yaml, namespace: team}
        data: {k: v}
        ''')
            assert kube.get("configmaps", "from-yaml", "team")["data"] == {"k": "v"}
        """
    )
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
