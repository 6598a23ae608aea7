"""Server-side printing without kubectl: the JSONPath subset, the printers' cells and the Table on the wire."""

from __future__ import annotations

import http.client
import json
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest

from fakekube.server import cells, jsonpath, printers, tables
from fakekube.server.columndocs import resolved
from fakekube.watch import WatchEvent

from .conftest import WIDGET_CRD

TABLE_ACCEPT = ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
                "application/json")
NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)

# -- JSONPath subset -------------------------------------------------------------------------------------------

DOC = {
    "spec": {"size": 3, "containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]},
    "metadata": {"labels": {"app.kubernetes.io/name": "web"}},
    "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True", "n": 1}]},
}


@pytest.mark.parametrize(("path", "expected"), [
    (".spec.size", [3]),
    ("{.spec.size}", [3]),
    ("$.spec.size", [3]),
    (".spec.containers[0].image", ["x"]),
    (".spec.containers[-1].name", ["b"]),
    (".spec.containers[5].name", []),
    (".spec.containers[*].name", ["a", "b"]),
    (".status.conditions[?(@.type==\"Ready\")].status", ["True"]),
    (".status.conditions[?(@.type=='Synced')].status", ["False"]),
    (".status.conditions[?(@.type!=\"Ready\")].type", ["Synced"]),
    (".status.conditions[?(@.n==1)].type", ["Ready"]),
    (".status.conditions[?(@.n)].type", ["Ready"]),
    (".metadata.labels['app.kubernetes.io/name']", ["web"]),
    (".spec.missing.deeper", []),
    (".spec.size.nested", []),
])
def test_jsonpath_subset_finds(path, expected):
    assert jsonpath.find(jsonpath.parse(path), DOC) == expected


def test_jsonpath_filter_never_confuses_booleans_with_numbers():
    steps = jsonpath.parse(".items[?(@.v==1)].name")
    assert jsonpath.find(steps, {"items": [{"v": True, "name": "bool"}, {"v": 1.0, "name": "one"}]}) == ["one"]


@pytest.mark.parametrize("path", ["", "spec.size", ".spec[", ".spec[abc]", ".a[?(@.x > 1)]", ".a..b"])
def test_jsonpath_outside_the_subset_is_rejected_when_parsed(path):
    with pytest.raises(jsonpath.JSONPathError):
        jsonpath.parse(path)


# -- cells -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seconds", "text"), [
    (-5, "<invalid>"), (-1, "0s"), (0, "0s"), (119, "119s"), (120, "2m"), (125, "2m5s"), (600, "10m"),
    (3 * 3600 - 1, "179m"), (3 * 3600, "3h"), (3 * 3600 + 60, "3h1m"), (8 * 3600, "8h"), (47 * 3600, "47h"),
    (50 * 3600, "2d2h"), (8 * 86400, "8d"), (800 * 86400, "2y70d"), (9 * 365 * 86400, "9y"),
])
def test_human_duration_matches_apimachinery(seconds, text):
    assert cells.human_duration(seconds) == text


@pytest.mark.parametrize(("type_", "value", "cell"), [
    ("integer", 3, 3), ("integer", 2.7, 2), ("integer", "3", None), ("integer", True, None),
    ("number", 2, 2.0), ("boolean", True, True), ("boolean", "true", None),
    ("string", "x", "x"), ("string", 3, "3"), ("string", 2.5, "2.5"), ("string", False, "false"),
    ("string", {"b": 1, "a": [1]}, '{"a":[1],"b":1}'),
    ("date", "2026-01-01T11:55:00Z", "5m"), ("date", "yesterday", "<invalid>"), ("date", 5, None),
    ("object", {"a": 1}, None),
])
def test_crd_cells_are_typed_like_the_server(type_, value, cell):
    assert cells.typed_cell(type_, value, NOW) == cell
    assert type(cells.typed_cell(type_, value, NOW)) is type(cell)


def test_crd_printer_columns_and_defaults():
    printer = printers.crd_printer([
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
        {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status',
         "priority": 1, "description": "ready?"},
    ])
    assert [(c["name"], c["type"], c["priority"]) for c in printer.columns] == [
        ("Name", "string", 0), ("Size", "integer", 0), ("Ready", "string", 1)]
    assert printer.columns[2]["description"] == "ready?"
    assert printer.columns[1]["description"] == "Custom resource definition column (in JSONPath format): .spec.size"
    assert printer.row({**DOC, "metadata": {"name": "w"}}, NOW) == ["w", 3, "True"]
    assert printer.row({"metadata": {"name": "w"}}, NOW) == ["w", None, None]
    default = printers.crd_printer(None)
    assert [c["name"] for c in default.columns] == ["Name", "Age"]
    created = (NOW - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert default.row({"metadata": {"name": "w", "creationTimestamp": created}}, NOW) == ["w", "3h"]


def _pod(**status):
    return {"metadata": {"name": "p", "creationTimestamp": "2026-01-01T11:00:00Z"},
            "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "n1"}, "status": status}


def test_pod_cells():
    row = printers.BUILTIN[("", "pods")].row
    assert row(_pod(phase="Pending"), NOW) == ["p", "0/2", "Pending", "0", "60m", "<none>", "n1", "<none>", "<none>"]
    running = _pod(phase="Running", podIPs=[{"ip": "10.0.0.1"}], containerStatuses=[
        {"name": "a", "ready": True, "restartCount": 1, "state": {"running": {}},
         "lastState": {"terminated": {"finishedAt": "2026-01-01T11:58:00Z"}}},
        {"name": "b", "ready": False, "restartCount": 0, "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
    ])
    assert row(running, NOW)[:6] == ["p", "1/2", "CrashLoopBackOff", "1 (2m ago)", "60m", "10.0.0.1"]
    gated = _pod(phase="Pending", conditions=[{"type": "G", "status": "True"}])
    gated["spec"]["readinessGates"] = [{"conditionType": "G"}, {"conditionType": "H"}]
    assert row(gated, NOW)[-1] == "1/2"
    init = _pod(phase="Pending", initContainerStatuses=[{"name": "i", "state": {"waiting": {"reason": "PodInitializing"}}}])
    init["spec"]["initContainers"] = [{"name": "i"}]
    assert row(init, NOW)[2] == "Init:0/1"
    deleting = _pod(phase="Running")
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T11:59:00Z"
    assert row(deleting, NOW)[2] == "Terminating"


def test_other_builtin_cells():
    meta = {"name": "x", "creationTimestamp": "2026-01-01T11:59:00Z"}
    svc = {"metadata": meta, "spec": {"type": "NodePort", "clusterIPs": ["10.96.0.9"], "selector": {"b": "2", "a": "1"},
                                      "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}, {"port": 53,
                                                                                                        "protocol": "UDP"}]}}
    assert printers.BUILTIN[("", "services")].row(svc, NOW) == [
        "x", "NodePort", "10.96.0.9", "<none>", "80:30080/TCP,53/UDP", "60s", "a=1,b=2"]
    lb = {"metadata": meta, "spec": {"type": "LoadBalancer"}, "status": {}}
    assert printers.BUILTIN[("", "services")].row(lb, NOW)[2:5] == ["<none>", "<pending>", "<none>"]
    dep = {"metadata": meta, "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "w"}},
                                      "template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
           "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}}
    assert printers.BUILTIN[("apps", "deployments")].row(dep, NOW) == ["x", "2/3", 3, 2, "60s", "c", "nginx", "app=w"]
    secret = {"metadata": meta, "type": "Opaque", "data": {"a": "", "b": ""}}
    assert printers.BUILTIN[("", "secrets")].row(secret, NOW) == ["x", "Opaque", 2, "60s"]
    lease = {"metadata": meta, "spec": {"holderIdentity": "me"}}
    assert printers.BUILTIN[("coordination.k8s.io", "leases")].row(lease, NOW) == ["x", "me", "60s"]
    netpol = {"metadata": meta, "spec": {"podSelector": {}}}
    assert printers.BUILTIN[("networking.k8s.io", "networkpolicies")].row(netpol, NOW) == ["x", "<none>", "60s"]
    event = {"metadata": {"name": "e1"}, "type": "Normal", "reason": "Pulled", "message": " done \n",
             "involvedObject": {"kind": "Pod", "name": "p"}, "source": {"component": "kubelet", "host": "n1"},
             "firstTimestamp": "2026-01-01T11:00:00Z", "lastTimestamp": "2026-01-01T11:58:00Z", "count": 4}
    assert printers.BUILTIN[("", "events")].row(event, NOW) == [
        "2m", "Normal", "Pulled", "pod/p", "", "kubelet, n1", "done", "60m", 4, "e1"]
    pvc = {"metadata": meta, "spec": {"volumeName": "pv1", "storageClassName": "std"},
           "status": {"phase": "Bound", "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce"]}}
    assert printers.BUILTIN[("", "persistentvolumeclaims")].row(pvc, NOW) == [
        "x", "Bound", "pv1", "1Gi", "RWO,RWX", "std", "<unset>", "60s", "<unset>"]


# -- Accept negotiation ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("accept", "version"), [
    (TABLE_ACCEPT, "v1"),
    ("application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json", "v1beta1"),
    ("application/json", None),
    ("application/json, application/json;as=Table;v=v1;g=meta.k8s.io", None),  # plain JSON comes first
    ("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json", None),
    ("application/json;as=Table;v=v2;g=meta.k8s.io,application/json", None),
    ("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json", None),
    ("*/*", None),
    (None, None),
])
def test_wants_table(accept, version):
    assert tables.wants_table(accept) == version


# -- the Table on the wire -------------------------------------------------------------------------------------


def _get(api, path, accept=TABLE_ACCEPT):
    return api("GET", path, headers={"Accept": accept})


def test_plain_clients_still_get_objects(api, kube_server):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    plain = _get(api, "/api/v1/namespaces/default/configmaps", accept="application/json")
    assert plain.json()["kind"] == "ConfigMapList"
    assert plain.headers["content-type"] == "application/json"


def test_list_table_shape_and_pagination(api, kube_server):
    for name in ("a", "b", "c"):
        kube_server.store.create("configmaps", {"metadata": {"name": name, "labels": {"k": name}},
                                                "data": {"x": "1"}}, "default")
    resp = _get(api, "/api/v1/namespaces/default/configmaps?limit=2")
    assert resp.status == 200
    assert resp.headers["content-type"] == "application/json;as=Table;v=v1;g=meta.k8s.io"
    table = resp.json()
    assert table["kind"] == "Table" and table["apiVersion"] == "meta.k8s.io/v1"
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Data", "Age"]
    assert set(table["columnDefinitions"][0]) == {"name", "type", "format", "description", "priority"}
    assert table["columnDefinitions"][0]["format"] == "name"
    assert table["metadata"]["continue"] and table["metadata"]["resourceVersion"]
    assert table["metadata"]["remainingItemCount"] == 1
    assert [r["cells"][:2] for r in table["rows"]] == [["a", 1], ["b", 1]]
    row_object = table["rows"][0]["object"]
    assert row_object["kind"] == "PartialObjectMetadata" and row_object["apiVersion"] == "meta.k8s.io/v1"
    assert row_object["metadata"]["labels"] == {"k": "a"} and "data" not in row_object
    rest = _get(api, f"/api/v1/namespaces/default/configmaps?limit=2&continue={table['metadata']['continue']}")
    assert [r["cells"][0] for r in rest.json()["rows"]] == ["c"]
    assert "continue" not in rest.json()["metadata"]


def test_get_one_object_and_include_object(api, kube_server):
    cm = kube_server.store.create("configmaps", {"metadata": {"name": "c"}, "data": {"x": "1"}}, "default")
    table = _get(api, "/api/v1/namespaces/default/configmaps/c?includeObject=Object").json()
    assert table["metadata"] == {"resourceVersion": cm["metadata"]["resourceVersion"]}
    (row,) = table["rows"]
    assert row["object"]["kind"] == "ConfigMap" and row["object"]["apiVersion"] == "v1"
    assert row["object"]["data"] == {"x": "1"}
    none = _get(api, "/api/v1/namespaces/default/configmaps/c?includeObject=None").json()
    assert "object" not in none["rows"][0]
    bad = _get(api, "/api/v1/namespaces/default/configmaps/c?includeObject=Everything")
    assert bad.status == 400 and "unrecognized includeObject value" in bad.json()["message"]
    v1beta1 = _get(api, "/api/v1/namespaces/default/configmaps/c",
                   accept="application/json;as=Table;v=v1beta1;g=meta.k8s.io").json()
    assert v1beta1["apiVersion"] == "meta.k8s.io/v1beta1"
    missing = _get(api, "/api/v1/namespaces/default/configmaps/nope")
    assert missing.status == 404 and missing.json()["kind"] == "Status"


def test_custom_resource_table_from_printer_columns(api, kube_server):
    crd = json.loads(json.dumps(WIDGET_CRD))
    crd["spec"]["versions"][0]["additionalPrinterColumns"] = [
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
        {"name": "Color", "type": "string", "jsonPath": ".spec.color", "priority": 1},
    ]
    kube_server.store.load_crds(crd)
    kube_server.store.create("widgets", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                                         "spec": {"size": 4}}, "default")
    table = _get(api, "/apis/example.com/v1/namespaces/default/widgets").json()
    assert [(c["name"], c["type"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", "string", 0), ("Size", "integer", 0), ("Color", "string", 1)]
    assert table["rows"][0]["cells"] == ["w", 4, None]
    # Changing the CRD's columns takes effect at once (the printer cache follows the registry).
    crd["spec"]["versions"][0]["additionalPrinterColumns"] = []
    kube_server.store.load_crds(crd)
    table = _get(api, "/apis/example.com/v1/namespaces/default/widgets").json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Age"]


def test_watch_events_are_tables_with_headers_once(kube_server):
    store = kube_server.store
    store.create("configmaps", {"metadata": {"name": "a"}, "data": {"x": "1"}}, "default")
    parts = urlsplit(kube_server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&timeoutSeconds=30",
                     headers={"Accept": TABLE_ACCEPT})
        resp = conn.getresponse()
        assert resp.status == 200
        first = json.loads(resp.readline())
        # The stream is closed after two lines: the long timeout only keeps a busy host's second event inside it.
        store.create("configmaps", {"metadata": {"name": "b"}}, "default")
        second = json.loads(resp.readline())
    finally:
        conn.close()
    assert first["type"] == "ADDED" and first["object"]["kind"] == "Table"
    assert [c["name"] for c in first["object"]["columnDefinitions"]] == ["Name", "Data", "Age"]
    assert first["object"]["rows"][0]["cells"][:2] == ["a", 1]
    assert "columnDefinitions" not in second["object"]
    assert second["object"]["rows"][0]["cells"][:2] == ["b", 0]
    assert second["object"]["rows"][0]["object"]["kind"] == "PartialObjectMetadata"


def test_watch_errors_and_bookmarks_keep_their_shape(kube_server):
    writer = tables.TableWriter(printers.DEFAULT, kube_server.store.resolve("configmaps"), "v1", "Metadata",
                                lambda: NOW)
    status = {"kind": "Status", "code": 410}
    assert writer.for_event(WatchEvent("ERROR", status)) is status
    mark = writer.for_event(WatchEvent("BOOKMARK", {"metadata": {"resourceVersion": "7"}}))
    assert mark["rows"] == [] and mark["metadata"] == {"resourceVersion": "7"}


# -- column definitions as kube-apiserver v1.37.2 writes them ------------------------------------------------

NAME_DOC = ("Name must be unique within a namespace. Is required when creating resources, although some resources "
            "may allow a client to request the generation of an appropriate name automatically. Name is primarily "
            "intended for creation idempotence and configuration definition. Cannot be updated. More info: "
            "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names")


def test_column_descriptions_are_the_fields_documentation():
    # Observed on kube-apiserver v1.37.2: the printers describe columns with the Go fields' SwaggerDoc
    # (kubernetes pkg/printers/internalversion/printers.go), the OpenAPI descriptions.
    configmaps = resolved(printers.BUILTIN[("", "configmaps")].columns)
    assert [c["name"] for c in configmaps] == ["Name", "Data", "Age"]
    assert configmaps[0] == {"name": "Name", "type": "string", "format": "name", "description": NAME_DOC,
                             "priority": 0}
    assert configmaps[1]["description"].startswith("Data contains the configuration data. Each key must consist")
    assert configmaps[2]["description"].startswith("CreationTimestamp is a timestamp representing the server time "
                                                   "when this object was created. It is not guaranteed")
    assert "\n\nPopulated by the system. Read-only. Null for lists." in configmaps[2]["description"]
    pods = {c["name"]: c["description"] for c in resolved(printers.BUILTIN[("", "pods")].columns)}
    assert pods["Ready"] == "The aggregate readiness state of this pod for accepting traffic."
    assert pods["Node"].startswith("NodeName indicates in which node this pod is scheduled.")
    # A custom resource's Name and default Age are ObjectMeta's (apiextensions-apiserver tableconvertor).
    widget = resolved(printers.crd_printer(None).columns)
    assert widget[0]["description"] == NAME_DOC and widget[1]["description"] == configmaps[2]["description"]
    described = resolved(printers.crd_printer([{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}]).columns)
    assert described[1]["description"] == "Custom resource definition column (in JSONPath format): .spec.size"


def test_columns_of_service_accounts_daemon_sets_and_cron_jobs():
    # Observed on kube-apiserver v1.37.2: ServiceAccounts print Name and Age only; DaemonSets and CronJobs have
    # the wide Containers, Images and Selector columns.
    assert [c["name"] for c in printers.BUILTIN[("", "serviceaccounts")].columns] == ["Name", "Age"]
    ds = {"metadata": {"name": "d", "creationTimestamp": "2026-01-01T11:59:00Z"},
          "spec": {"selector": {"matchLabels": {"app": "d"}},
                   "template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    daemonsets = printers.BUILTIN[("apps", "daemonsets")]
    assert [c["name"] for c in daemonsets.columns][-3:] == ["Containers", "Images", "Selector"]
    assert daemonsets.row(ds, NOW) == ["d", 0, 0, 0, 0, 0, "<none>", "60s", "c", "nginx", "app=d"]
    cj = {"metadata": {"name": "j", "creationTimestamp": "2026-01-01T11:59:00Z"},
          "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {"containers": [
              {"name": "c", "image": "busybox"}]}}}}}}
    cronjobs = printers.BUILTIN[("batch", "cronjobs")]
    assert len(cronjobs.columns) == len(cronjobs.row(cj, NOW)) == 10
    assert cronjobs.row(cj, NOW)[-3:] == ["c", "busybox", "<none>"]
