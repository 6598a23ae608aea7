"""Optional TLS for the fake server: a throwaway CA, a loopback server certificate and an admin client
certificate, made in memory.

kubectl sends credentials only over TLS (client-go reads auth info only for TLS transports), so token and RBAC
tests through kubectl need this. The server asks for a client certificate and accepts one its CA signed (the
request is then the certificate's user); the admin certificate is the one kubeadm (and so kind) writes into
``admin.conf`` since Kubernetes 1.29: CN ``kubernetes-admin``, O ``kubeadm:cluster-admins``
(cmd/kubeadm/app/phases/kubeconfig/kubeconfig.go). Certificates come from the ``cryptography`` package, the
optional extra ``fakekube[tls]`` (docs/dependencies.md).
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ADMIN_USER = "kubernetes-admin"
ADMIN_GROUPS = ("kubeadm:cluster-admins",)


@dataclass(frozen=True, slots=True)
class Certificates:
    ca_pem: bytes
    cert_pem: bytes
    key_pem: bytes
    client_cert_pem: bytes = b""  # the admin user's certificate and key, for kubeconfigs
    client_key_pem: bytes = b""
    ca_key_pem: bytes = field(default=b"", repr=False)  # to sign more client certificates

    def server_context(self) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.set_alpn_protocols(["http/1.1"])  # no h2: kubectl would otherwise try HTTP/2
        with tempfile.TemporaryDirectory() as tmp:
            cert, key = Path(tmp) / "tls.crt", Path(tmp) / "tls.key"
            cert.write_bytes(self.cert_pem + self.ca_pem)
            key.write_bytes(self.key_pem)
            ctx.load_cert_chain(cert, key)
        # Ask for a client certificate, accept a connection without one (token and anonymous requests).
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.load_verify_locations(cadata=self.ca_pem.decode())
        return ctx

    def issue_client(self, user: str, groups: tuple[str, ...] = ()) -> tuple[bytes, bytes]:
        """A client certificate (PEM certificate, PEM key) for ``user`` in ``groups``, signed by the CA."""
        return _client_certificate(self.ca_pem, self.ca_key_pem, user, groups)


def _crypto() -> tuple[object, ...]:
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("TLS needs the 'cryptography' package: pip install 'fakekube[tls]'") from exc
    return x509, hashes, serialization, ec, ExtendedKeyUsageOID, NameOID


def _client_certificate(ca_pem: bytes, ca_key_pem: bytes, user: str, groups: tuple[str, ...]) -> tuple[bytes, bytes]:
    x509, hashes, serialization, ec, eku, oid = _crypto()
    ca = x509.load_pem_x509_certificate(ca_pem)
    ca_key = serialization.load_pem_private_key(ca_key_pem, password=None)
    now = datetime.datetime.now(datetime.UTC)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([*(x509.NameAttribute(oid.ORGANIZATION_NAME, g) for g in groups),
                         x509.NameAttribute(oid.COMMON_NAME, user)])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, content_commitment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([eku.CLIENT_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    return (cert.public_bytes(pem),
            key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def make_certificates(hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "::1")) -> Certificates:
    """A self-signed EC P-256 CA, a server certificate for ``hosts`` and the admin client certificate, valid
    for a day."""
    x509, hashes, serialization, ec, ExtendedKeyUsageOID, NameOID = _crypto()  # noqa: N806 - the library's names

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fakekube-ca")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fakekube")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    ca_pem = ca.public_bytes(pem)
    ca_key_pem = ca_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    client_cert, client_key = _client_certificate(ca_pem, ca_key_pem, ADMIN_USER, ADMIN_GROUPS)
    return Certificates(
        ca_pem, cert.public_bytes(pem),
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        client_cert, client_key, ca_key_pem,
    )
