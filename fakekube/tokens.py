"""Bearer tokens a store knows: bound service-account tokens it issues (TokenRequest) and static tokens.

Service-account tokens are JWTs with the claims kube-apiserver puts in them (kubernetes
``pkg/serviceaccount/claims.go``): ``iss``, ``sub`` ``system:serviceaccount:<ns>:<name>``, ``aud``, ``exp``,
``iat``, ``nbf``, ``jti`` and the private ``kubernetes.io`` claim naming the namespace, the service account and
the pod or secret the token is bound to (with the pod's node). Validating one checks what upstream's validator
checks: signature and issuer, time with a minute of leeway (go-jose's ``DefaultLeeway``), audience, that the
service account still exists with the same uid, and that a bound pod or secret still exists, with its uid,
and is not being deleted. The user it names is ``ServiceAccountInfo.UserInfo()``'s.

The tokens are signed HS256 with a key the store generates (derived from its seed, so a seeded run issues the
same tokens), not RS256 with a key pair: only the server that issued a token verifies it here, and no OIDC
discovery document is served (docs/not-emulated.md).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.identity import UserInfo

if TYPE_CHECKING:
    from fakekube.store import Store

# kubeadm's (and kind's) --service-account-issuer; --api-audiences defaults to it.
DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"
LEEWAY_SECONDS = 60  # go-jose jwt.DefaultLeeway
SA_PREFIX = "system:serviceaccount:"
POD_NAME_KEY = "authentication.kubernetes.io/pod-name"
POD_UID_KEY = "authentication.kubernetes.io/pod-uid"
NODE_NAME_KEY = "authentication.kubernetes.io/node-name"
NODE_UID_KEY = "authentication.kubernetes.io/node-uid"
CREDENTIAL_ID_KEY = "authentication.kubernetes.io/credential-id"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def service_account_user(namespace: str, name: str, uid: str, extra: dict[str, tuple[str, ...]]) -> UserInfo:
    """apiserver ``ServiceAccountInfo.UserInfo`` (authentication adds ``system:authenticated``)."""
    return UserInfo(f"{SA_PREFIX}{namespace}:{name}", uid,
                    ("system:serviceaccounts", f"system:serviceaccounts:{namespace}"), extra)


def _go_quoted_list(values: Sequence[str]) -> str:
    return "[" + " ".join(json.dumps(v) for v in values) + "]"


@dataclass(frozen=True, slots=True)
class TokenReviewResult:
    """What authenticating a token found: the user (None when not authenticated), the audiences it is
    valid for, and the error text a TokenReview reports."""

    user: UserInfo | None
    audiences: tuple[str, ...] = ()
    error: str = ""


class TokenAuthority:
    """The bearer tokens one store accepts: the service-account tokens it issued and any static ones
    (``static``: token → user, filled by the HTTP front's ``--token``)."""

    def __init__(self, store: Store, seed: int | None, *, issuer: str = DEFAULT_ISSUER) -> None:
        self._store = store
        self.issuer = issuer
        self.api_audiences: tuple[str, ...] = (issuer,)
        self.static: dict[str, UserInfo] = {}
        if seed is None:
            self._key = secrets.token_bytes(32)
            self._ids = random.Random()
        else:
            rng = random.Random(f"{seed}/token-key")
            self._key = rng.getrandbits(256).to_bytes(32, "big")
            self._ids = random.Random(f"{seed}/token-ids")
        self.key_id = _b64(hashlib.sha256(self._key).digest())[:43]

    # -- issuing -------------------------------------------------------------------------------------------

    def issue(self, service_account: dict[str, Any], audiences: Sequence[str], expiration_seconds: int,
              now: datetime, *, pod: dict[str, Any] | None = None, secret: dict[str, Any] | None = None,
              node: dict[str, Any] | None = None, warn_after: int = 0) -> str:
        """A signed token for ``service_account`` (``claims.go`` ``Claims``, then the generator's ``iss``)."""
        meta = service_account["metadata"]
        issued = int(now.timestamp())
        kubernetes: dict[str, Any] = {
            "namespace": meta["namespace"],
            "serviceaccount": {"name": meta["name"], "uid": meta["uid"]},
        }
        if pod is not None:
            kubernetes["pod"] = _ref(pod)
            if node is not None:
                kubernetes["node"] = _ref(node)
        elif secret is not None:
            kubernetes["secret"] = _ref(secret)
        if warn_after:
            kubernetes["warnafter"] = issued + warn_after
        claims = {
            "aud": list(audiences),
            "exp": issued + expiration_seconds,
            "iat": issued,
            "iss": self.issuer,
            "jti": str(uuid.UUID(int=self._ids.getrandbits(128), version=4)),
            "kubernetes.io": kubernetes,
            "nbf": issued,
            "sub": f"{SA_PREFIX}{meta['namespace']}:{meta['name']}",
        }
        header = {"alg": "HS256", "kid": self.key_id}
        signing_input = f"{_b64(_compact(header))}.{_b64(_compact(claims))}"
        signature = hmac.new(self._key, signing_input.encode(), hashlib.sha256).digest()
        return f"{signing_input}.{_b64(signature)}"

    # -- authenticating ------------------------------------------------------------------------------------

    def authenticate(self, token: str) -> UserInfo | None:
        """The user of a bearer token (static or service account) for the API audiences, or None."""
        return self.review(token).user

    def review(self, token: str, audiences: Sequence[str] = ()) -> TokenReviewResult:
        """Authenticate ``token`` as the server's bearer-token authenticators do, for ``audiences`` (the API
        audiences when empty); the user has ``system:authenticated`` added."""
        requested = tuple(audiences) or self.api_audiences
        for known, user in self.static.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                return TokenReviewResult(user.with_authenticated_group(), requested)
        claims = self._verified_claims(token)
        if claims is None:
            return TokenReviewResult(None, error="invalid bearer token")
        try:
            user, valid_for = self._validate(claims, requested)
        except _Invalid as exc:
            return TokenReviewResult(None, error=str(exc))
        return TokenReviewResult(user.with_authenticated_group(), valid_for)

    def _verified_claims(self, token: str) -> dict[str, Any] | None:
        """The claims of a well-formed token this authority signed, or None (not one of ours)."""
        parts = token.split(".")
        if len(parts) != 3:
            return None
        try:
            header = json.loads(_unb64(parts[0]))
            claims = json.loads(_unb64(parts[1]))
            signature = _unb64(parts[2])
        except ValueError:
            return None
        if not isinstance(header, dict) or header.get("alg") != "HS256" or not isinstance(claims, dict):
            return None
        expected = hmac.new(self._key, f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest()
        if not hmac.compare_digest(expected, signature) or claims.get("iss") != self.issuer:
            return None
        return claims

    def _validate(self, claims: dict[str, Any], requested: tuple[str, ...]) -> tuple[UserInfo, tuple[str, ...]]:
        token_audiences = claims.get("aud") or []
        if isinstance(token_audiences, str):
            token_audiences = [token_audiences]
        valid_for = tuple(a for a in requested if a in token_audiences)
        if not valid_for:
            raise _Invalid(f"token audiences {_go_quoted_list(token_audiences)} is invalid for the target "
                           f"audiences {_go_quoted_list(requested)}")
        now = int(self._store.clock.now().timestamp())
        if isinstance(claims.get("exp"), int) and now - LEEWAY_SECONDS > claims["exp"]:
            raise _Invalid("service account token has expired")
        if isinstance(claims.get("nbf"), int) and now + LEEWAY_SECONDS < claims["nbf"]:
            raise _Invalid("service account token is not valid yet")
        private = claims.get("kubernetes.io") or {}
        namespace = private.get("namespace", "")
        sa_ref = private.get("serviceaccount") or {}
        sa = self._live("serviceaccounts", namespace, sa_ref.get("name", ""), now)
        if sa is None:
            raise _Invalid(f'serviceaccounts "{sa_ref.get("name", "")}" not found')
        if sa is _DELETED:
            raise _Invalid(f"service account {namespace}/{sa_ref.get('name', '')} has been deleted")
        if sa["metadata"].get("uid") != sa_ref.get("uid"):
            raise _Invalid(f"service account UID ({sa['metadata'].get('uid')}) does not match claim "
                           f"({sa_ref.get('uid')})")
        extra: dict[str, tuple[str, ...]] = {}
        for kind, resource in (("secret", "secrets"), ("pod", "pods")):
            ref = private.get(kind)
            if not ref:
                continue
            bound = self._live(resource, namespace, ref.get("name", ""), now)
            if bound is None or bound is _DELETED:
                raise _Invalid("service account token has been invalidated")
            if bound["metadata"].get("uid") != ref.get("uid"):
                raise _Invalid(f"{kind} UID ({bound['metadata'].get('uid')}) does not match service account "
                               f"{kind} ref claim ({ref.get('uid')})")
            if kind == "pod":
                extra[POD_NAME_KEY] = (ref["name"],)
                extra[POD_UID_KEY] = (ref["uid"],)
        if claims.get("jti"):
            extra[CREDENTIAL_ID_KEY] = (f"JTI={claims['jti']}",)
        node = private.get("node")
        if node and node.get("name"):
            extra[NODE_NAME_KEY] = (node["name"],)
            if node.get("uid"):
                extra[NODE_UID_KEY] = (node["uid"],)
        return service_account_user(namespace, sa["metadata"]["name"], sa["metadata"]["uid"], extra), valid_for

    def _live(self, resource: str, namespace: str, name: str, now: int) -> Any:
        """The stored object, None when missing, ``_DELETED`` when its deletion started over a leeway ago."""
        obj = stored(self._store, resource, namespace, name)
        if obj is None:
            return None
        deleted = obj["metadata"].get("deletionTimestamp")
        if deleted and datetime.fromisoformat(deleted.replace("Z", "+00:00")).timestamp() < now - LEEWAY_SECONDS:
            return _DELETED
        return obj


def stored(store: Store, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
    """The stored object itself (read-only), or None when it or its resource type does not exist."""
    try:
        rt = store.resolve(resource)
    except errors.ApiError:
        return None
    return store.stored_object(rt.storage, (namespace if rt.namespaced else "", name))


class _Invalid(Exception):
    """A token of ours that does not authenticate (the message is the TokenReview's error)."""


_DELETED: Any = object()


def _ref(obj: dict[str, Any]) -> dict[str, str]:
    meta = obj["metadata"]
    ref = {"name": meta["name"]}
    if meta.get("uid"):
        ref["uid"] = meta["uid"]
    return ref


def _compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()
