"""The egress proxy's per-run certificate authority, so that every HTTPS request is seen by URL.

The CA's key lives in this process's memory only and never enters a sandbox; a sandbox gets the
CA certificate, as a bundle with the host's trust store (ca.pem). A leaf certificate per host
(SAN = the host, valid a day) is made on demand and cached; leaves share one key.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import secrets
import shutil
import ssl
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from reclaim.tempdirs import owned_tempdir

SYSTEM_BUNDLES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
                  "/etc/ssl/cert.pem")
LEAF_DAYS = 1


def system_bundle() -> str:
    """The host's trust store: the distribution's bundle, else certifi's."""
    for path in SYSTEM_BUNDLES:
        if os.path.isfile(path):
            return path
    import certifi
    return certifi.where()


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class CertificateAuthority:
    def __init__(self, days: int = 30):
        self._key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "reclaim"),
                          x509.NameAttribute(NameOID.COMMON_NAME, f"reclaim egress CA {secrets.token_hex(4)}")])
        ski = x509.SubjectKeyIdentifier.from_public_key(self._key.public_key())
        self.cert = (
            x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(self._key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(_now() - dt.timedelta(hours=1)).not_valid_after(_now() + dt.timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False, key_agreement=False,
                                         key_cert_sign=True, crl_sign=True, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(ski, critical=False)
            .sign(self._key, hashes.SHA256()))
        self.cert_pem = self.cert.public_bytes(serialization.Encoding.PEM)
        self._leaf_key = ec.generate_private_key(ec.SECP256R1())
        self._dir = owned_tempdir("ca")  # 0700: leaves' key, never bound anywhere
        self._key_file = self._dir / "leaf.key"
        self._key_file.write_bytes(self._leaf_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        self._cache: dict[str, tuple[dt.datetime, ssl.SSLContext]] = {}
        self._lock = threading.Lock()

    def leaf(self, host: str) -> x509.Certificate:
        try:
            san: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host.strip("[]")))
        except ValueError:
            san = x509.DNSName(host)
        return (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host[:64])]))
            .issuer_name(self.cert.subject).public_key(self._leaf_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(_now() - dt.timedelta(hours=1))
            .not_valid_after(_now() + dt.timedelta(days=LEAF_DAYS))
            .add_extension(x509.SubjectAlternativeName([san]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False, key_agreement=False,
                                         key_cert_sign=False, crl_sign=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self._leaf_key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()),
                           critical=False)
            .sign(self._key, hashes.SHA256()))

    def server_context(self, host: str) -> ssl.SSLContext:
        """A TLS server context presenting host's leaf, ALPN http/1.1 only; the client's SNI is
        left on the connection's SSLObject as `reclaim_sni`."""
        with self._lock:
            hit = self._cache.get(host)
            if hit and hit[0] - _now() > dt.timedelta(hours=1):
                return hit[1]
            cert = self.leaf(host)
            chain = self._dir / f"leaf-{secrets.token_hex(8)}.pem"
            chain.write_bytes(cert.public_bytes(serialization.Encoding.PEM) + self.cert_pem)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.minimum_version = ssl.TLSVersion.TLSv1_2
            ctx.load_cert_chain(chain, self._key_file)
            chain.unlink()
            ctx.set_alpn_protocols(["http/1.1"])

            def sni(obj, name, _ctx):
                obj.reclaim_sni = name

            ctx.sni_callback = sni
            self._cache[host] = (cert.not_valid_after_utc, ctx)
            return ctx

    def ca_bundle(self, path: Path) -> Path:
        """The host's system bundle followed by this CA's certificate: what a sandbox trusts."""
        path = Path(path)
        system = Path(system_bundle()).read_bytes()
        path.write_bytes(system.rstrip(b"\n") + b"\n" + self.cert_pem)
        path.chmod(0o644)
        return path

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)


def ca_bundle(ca: CertificateAuthority, path: Path) -> Path:
    return ca.ca_bundle(path)


def client_env(bundle_inside: str, proxy_url: str) -> dict[str, str]:
    """Variables that make common clients go through the proxy and trust the bundle: curl, wget,
    git, pip, uv, conda, npm/node, requests, httpx, urllib, huggingface_hub, cargo, Go, AWS SDKs."""
    env = dict.fromkeys(("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                         "npm_config_proxy", "npm_config_https_proxy"), proxy_url)
    # the model gateway is on the sandbox's loopback: never through the proxy
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1"
    for k in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_CERT", "GIT_SSL_CAINFO",
              "NODE_EXTRA_CA_CERTS", "npm_config_cafile", "CONDA_SSL_VERIFY", "CARGO_HTTP_CAINFO",
              "AWS_CA_BUNDLE", "HTTPLIB2_CA_CERTS"):
        env[k] = bundle_inside
    env["UV_NATIVE_TLS"] = "1"        # uv: the platform's store, which SSL_CERT_FILE names
    env["NODE_USE_ENV_PROXY"] = "1"   # node >= 24's own fetch honours HTTP(S)_PROXY
    env["HF_HUB_DISABLE_XET"] = "1"   # hub downloads over plain HTTPS, not the xet client's own
    env["HF_HUB_ENABLE_HF_TRANSFER"] = "0"
    env["GIT_TERMINAL_PROMPT"] = "0"  # a denied clone fails at once, no credential prompt
    return env
