"""A fake container's files and environment, seeded from its pod as the kubelet would lay them out.

Files: a few directories every image has, ``/etc/hostname`` and ``/etc/hosts`` (the kubelet writes both), and
each volume mount of a ConfigMap, Secret, downward API or projected volume with one file per key (``items``
paths honoured). Environment: the image's usual ``PATH``/``HOME``, ``HOSTNAME``, then ``envFrom`` and ``env``
resolved as the kubelet's ``makeEnvironmentVariables`` does (kubernetes pkg/kubelet/kubelet_pods.go, v1.37.2:
``envFrom`` first, ``env`` overriding, ``$(VAR)`` references expanded).
"""

from __future__ import annotations

import base64
import posixpath
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_BASE_DIRS = ("/", "/bin", "/dev", "/etc", "/home", "/proc", "/root", "/sbin", "/tmp", "/usr", "/usr/bin",
              "/usr/local", "/usr/local/bin", "/var", "/var/run")

# Reads an object of the pod's namespace: (plural, name) → the object or None.
Lookup = Callable[[str, str], "Mapping[str, Any] | None"]


class FileSystemError(Exception):
    """An operation failed as the syscall would (``message`` is what a coreutil prints after its name)."""


class ContainerFiles:
    """Files (path → bytes) and directories of one container, safe to use from several execs at once."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}
        self._dirs: set[str] = set(_BASE_DIRS)
        self._lock = threading.RLock()

    @staticmethod
    def resolve(path: str, cwd: str = "/") -> str:
        return posixpath.normpath(posixpath.join(cwd, path)).replace("//", "/")

    def is_dir(self, path: str) -> bool:
        with self._lock:
            return self.resolve(path) in self._dirs

    def is_file(self, path: str) -> bool:
        with self._lock:
            return self.resolve(path) in self._files

    def exists(self, path: str) -> bool:
        return self.is_dir(path) or self.is_file(path)

    def read(self, path: str) -> bytes:
        p = self.resolve(path)
        with self._lock:
            if p in self._dirs:
                raise FileSystemError(f"{path}: Is a directory")
            if p not in self._files:
                raise FileSystemError(f"{path}: No such file or directory")
            return self._files[p]

    def write(self, path: str, data: bytes, *, append: bool = False, parents: bool = False) -> None:
        p = self.resolve(path)
        with self._lock:
            parent = posixpath.dirname(p)
            if parents:
                self.mkdir(parent, parents=True)
            elif parent not in self._dirs:
                raise FileSystemError(f"{path}: No such file or directory")
            if p in self._dirs:
                raise FileSystemError(f"{path}: Is a directory")
            self._files[p] = (self._files.get(p, b"") if append else b"") + data

    def mkdir(self, path: str, *, parents: bool = False) -> None:
        p = self.resolve(path)
        with self._lock:
            if p in self._files:
                raise FileSystemError(f"{path}: File exists")
            if p in self._dirs:
                if parents:
                    return
                raise FileSystemError(f"cannot create directory '{path}': File exists")
            parent = posixpath.dirname(p)
            if parent not in self._dirs:
                if not parents:
                    raise FileSystemError(f"cannot create directory '{path}': No such file or directory")
                self.mkdir(parent, parents=True)
            self._dirs.add(p)

    def remove(self, path: str, *, recursive: bool = False) -> None:
        p = self.resolve(path)
        with self._lock:
            if p in self._files:
                del self._files[p]
            elif p in self._dirs and recursive and p != "/":
                prefix = p.rstrip("/") + "/"
                self._dirs = {d for d in self._dirs if d != p and not d.startswith(prefix)}
                self._files = {f: v for f, v in self._files.items() if not f.startswith(prefix)}
            elif p in self._dirs:
                raise FileSystemError(f"cannot remove '{path}': Is a directory")
            else:
                raise FileSystemError(f"cannot remove '{path}': No such file or directory")

    def listdir(self, path: str) -> list[str]:
        p = self.resolve(path)
        with self._lock:
            if p in self._files:
                return [posixpath.basename(p)]
            if p not in self._dirs:
                raise FileSystemError(f"cannot access '{path}': No such file or directory")
            prefix = p.rstrip("/") + "/"
            names = {e[len(prefix):].split("/", 1)[0] for e in (*self._dirs, *self._files)
                     if e.startswith(prefix) and e != p}
            return sorted(names)

    def walk(self, path: str) -> Iterator[tuple[str, bytes | None]]:
        """Every entry under ``path`` (itself first): (path, data), data None for a directory."""
        p = self.resolve(path)
        with self._lock:
            if p in self._files:
                yield p, self._files[p]
                return
            prefix = p.rstrip("/") + "/"
            entries = sorted([(d, None) for d in self._dirs if d == p or d.startswith(prefix)]
                             + [(f, v) for f, v in self._files.items() if f.startswith(prefix)],
                             key=lambda e: e[0])
        yield from entries


def _decoded(data: Mapping[str, Any] | None) -> dict[str, bytes]:
    return {k: base64.b64decode(v) for k, v in (data or {}).items() if isinstance(v, str)}


def _config_map_data(obj: Mapping[str, Any]) -> dict[str, bytes]:
    out = {k: str(v).encode() for k, v in (obj.get("data") or {}).items()}
    out.update(_decoded(obj.get("binaryData")))
    return out


def _with_items(data: dict[str, bytes], items: Any) -> dict[str, bytes]:
    if not isinstance(items, list) or not items:
        return data
    return {str(i["path"]): data[i["key"]] for i in items
            if isinstance(i, dict) and i.get("key") in data and i.get("path")}


_FIELD_INDEX = re.compile(r"^metadata\.(labels|annotations)\['(.+)'\]$")


def field_value(pod: Mapping[str, Any], path: str) -> str:
    """A downward API ``fieldRef`` (kubernetes pkg/api/v1/pod/util.go ``ConvertDownwardAPIFieldLabel``)."""
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    indexed = _FIELD_INDEX.match(path)
    if indexed:
        return str((meta.get(indexed.group(1)) or {}).get(indexed.group(2), ""))
    if path in ("metadata.labels", "metadata.annotations"):
        values = meta.get(path.split(".")[1]) or {}
        return "\n".join(f'{k}="{v}"' for k, v in sorted(values.items()))
    simple = {"metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"),
              "metadata.uid": meta.get("uid"), "spec.nodeName": spec.get("nodeName"),
              "spec.serviceAccountName": spec.get("serviceAccountName"), "status.podIP": status.get("podIP"),
              "status.hostIP": status.get("hostIP"),
              "status.podIPs": ",".join(i.get("ip", "") for i in status.get("podIPs") or []),
              "status.hostIPs": ",".join(i.get("ip", "") for i in status.get("hostIPs") or [])}
    return str(simple.get(path) or "")


def _downward(pod: Mapping[str, Any], items: Any) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for item in items or []:
        ref = (item or {}).get("fieldRef") or {}
        if item.get("path") and ref.get("fieldPath"):
            out[str(item["path"])] = field_value(pod, ref["fieldPath"]).encode()
    return out


def volume_files(pod: Mapping[str, Any], volume: Mapping[str, Any], lookup: Lookup) -> dict[str, bytes] | None:
    """The files a volume shows its mounts (relative paths), or None for a volume without fixed content."""
    if "configMap" in volume:
        src = volume["configMap"] or {}
        obj = lookup("configmaps", src.get("name", ""))
        return _with_items(_config_map_data(obj), src.get("items")) if obj else {}
    if "secret" in volume:
        src = volume["secret"] or {}
        obj = lookup("secrets", src.get("secretName", ""))
        return _with_items(_decoded(obj.get("data")), src.get("items")) if obj else {}
    if "downwardAPI" in volume:
        return _downward(pod, (volume["downwardAPI"] or {}).get("items"))
    if "projected" in volume:
        out: dict[str, bytes] = {}
        for source in (volume["projected"] or {}).get("sources") or []:
            if "serviceAccountToken" in source:
                out[source["serviceAccountToken"].get("path", "token")] = b"fake-service-account-token"
            else:
                out.update(volume_files(pod, source, lookup) or {})
        return out
    return None


# What a few common images ship that clients rely on (nginx's document root, which kr8s's suite writes into).
IMAGE_FILES: dict[str, dict[str, bytes]] = {
    "nginx": {"/usr/share/nginx/html/index.html": b"<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>"
              b"\n</head>\n<body>\n<h1>Welcome to nginx!</h1>\n</body>\n</html>\n",
              "/etc/nginx/nginx.conf": b"user  nginx;\nworker_processes  auto;\n"},
}


def image_name(image: str) -> str:
    """``docker.io/library/nginx:1.27@sha256:...`` → ``nginx``."""
    return image.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0]


def seed_files(pod: Mapping[str, Any], container: Mapping[str, Any], lookup: Lookup) -> ContainerFiles:
    files = ContainerFiles()
    for path, data in IMAGE_FILES.get(image_name(str(container.get("image") or "")), {}).items():
        files.write(path, data, parents=True)
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    hostname = spec.get("hostname") or meta.get("name", "")
    files.write("/etc/hostname", f"{hostname}\n".encode())
    ip = (pod.get("status") or {}).get("podIP") or ""
    hosts = "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
    files.write("/etc/hosts", (hosts + (f"{ip}\t{hostname}\n" if ip else "")).encode())
    volumes = {v.get("name"): v for v in spec.get("volumes") or [] if isinstance(v, dict)}
    for mount in container.get("volumeMounts") or []:
        volume = volumes.get(mount.get("name"))
        path = mount.get("mountPath")
        if volume is None or not path:
            continue
        files.mkdir(path, parents=True)
        content = volume_files(pod, volume, lookup)
        sub = mount.get("subPath")
        for name, data in (content or {}).items():
            if sub:
                if name == sub:
                    files.remove(path, recursive=True)
                    files.write(path, data, parents=True)
                continue
            files.write(posixpath.join(path, name), data, parents=True)
    return files


_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\$\$")


def expand(value: str, env: Mapping[str, str]) -> str:
    """``$(VAR)`` from the variables defined so far; ``$$`` escapes (kubernetes third_party/forked/golang/expansion)."""
    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            return "$"
        return env.get(m.group(1), m.group(0))
    return _REF.sub(sub, value)


def seed_env(pod: Mapping[str, Any], container: Mapping[str, Any], lookup: Lookup) -> dict[str, str]:
    meta = pod.get("metadata") or {}
    env = {"PATH": DEFAULT_PATH, "HOSTNAME": (pod.get("spec") or {}).get("hostname") or meta.get("name", ""),
           "HOME": "/root"}
    service = lookup("services", "kubernetes") if meta.get("namespace") == "default" else None
    if service and (service.get("spec") or {}).get("clusterIP"):
        host = service["spec"]["clusterIP"]
        port = str(((service["spec"].get("ports") or [{}])[0]).get("port", 443))
        env.update({"KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": port,
                    "KUBERNETES_PORT": f"tcp://{host}:{port}"})
    for source in container.get("envFrom") or []:
        prefix = source.get("prefix") or ""
        if "configMapRef" in source:
            obj = lookup("configmaps", (source["configMapRef"] or {}).get("name", ""))
            values = {k: str(v) for k, v in ((obj or {}).get("data") or {}).items()}
        elif "secretRef" in source:
            obj = lookup("secrets", (source["secretRef"] or {}).get("name", ""))
            values = {k: v.decode(errors="replace") for k, v in _decoded((obj or {}).get("data")).items()}
        else:
            continue
        env.update({prefix + k: v for k, v in values.items()})
    for var in container.get("env") or []:
        name = var.get("name")
        if not name:
            continue
        if "valueFrom" not in var:
            env[name] = expand(str(var.get("value", "")), env)
            continue
        source = var.get("valueFrom") or {}
        if "fieldRef" in source:
            env[name] = field_value(pod, (source["fieldRef"] or {}).get("fieldPath", ""))
        elif "configMapKeyRef" in source:
            ref = source["configMapKeyRef"] or {}
            obj = lookup("configmaps", ref.get("name", ""))
            data = (obj or {}).get("data") or {}
            if ref.get("key") in data:
                env[name] = str(data[ref["key"]])
        elif "secretKeyRef" in source:
            ref = source["secretKeyRef"] or {}
            obj = lookup("secrets", ref.get("name", ""))
            data = _decoded((obj or {}).get("data"))
            if ref.get("key") in data:
                env[name] = data[ref["key"]].decode(errors="replace")
    return env
