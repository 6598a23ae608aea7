"""``fakekube serve --token-auth-file``: kube-apiserver's static token file (tokenfile.go ``NewCSV``), read as it
reads it, and each token's user in the audit log and in ``kubectl auth whoami``."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from fakekube.identity import UserInfo
from fakekube.server.tokenfile import TokenFileError, read_token_file

from .test_cli import serving


def tokens(tmp_path, text: str):
    path = tmp_path / "tokens.csv"
    path.write_text(text)
    return read_token_file(path)


def test_records_give_users_uids_and_groups_as_upstream_splits_them(tmp_path):
    read = tokens(tmp_path, 'a-token,alice,1\nb-token,bob,2,"dev,ops"\n\nc-token,carol,3,,extra\nq,"d""q",4\n')
    assert read.tokens == {"a-token": UserInfo("alice", uid="1"), "b-token": UserInfo("bob", uid="2", groups=("dev", "ops")),
                           "c-token": UserInfo("carol", uid="3", groups=("",)), "q": UserInfo('d"q', uid="4")}
    assert read.warnings == []


def test_an_empty_token_is_skipped_and_a_duplicate_wins_with_warnings_naming_the_line(tmp_path):
    read = tokens(tmp_path, "t,alice,1\n,nobody,2\nt,bob,3\n")
    assert read.tokens == {"t": UserInfo("bob", uid="3")}
    path = tmp_path / "tokens.csv"
    assert read.warnings == [f"empty token has been found in token file '{path}', record number '2' (line 2)",
                             f"duplicate token has been found in token file '{path}', record number '3' (line 3)"]


@pytest.mark.parametrize(("text", "message"), [
    ("t,alice,1\nt2,bob\n", "must have at least 3 columns (token, user name, user uid), found 2 (line 2)"),
    ('t,al"ice,1\n', 'line 1, column 5: bare " in non-quoted-field'),  # Go's reader refuses it
])
def test_a_file_kube_apiserver_refuses_is_refused_with_its_line(tmp_path, text, message):
    with pytest.raises(TokenFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tokens(tmp_path, text)


def test_serve_refuses_a_bad_file_before_serving(tmp_path, capsys):
    from fakekube.cli import main

    bad = tmp_path / "tokens.csv"
    bad.write_text("only,two\n")
    assert main(["serve", "--no-controllers", "--token-auth-file", str(bad)]) == 2
    assert "must have at least 3 columns" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_each_tokens_user_is_who_kubectl_is_and_what_the_audit_log_says(tmp_path):
    pytest.importorskip("cryptography")
    (tmp_path / "tokens.csv").write_text('ctl-token,system:serviceaccount:sys:ctl,u1,"system:masters"\n')
    audit = tmp_path / "audit.log"
    with serving("--tls", "--token-auth-file", str(tmp_path / "tokens.csv"), "--audit-log", str(audit),
                 "--kubeconfig", str(tmp_path / "kc")):
        kc = tmp_path / "kc"
        # the kubeconfig's own user is the admin's certificate; a kubeconfig with only the token is the token's user
        import yaml

        doc = yaml.safe_load(kc.read_text())
        doc["users"] = [{"name": "ctl", "user": {"token": "ctl-token"}}]
        for context in doc["contexts"]:
            context["context"]["user"] = "ctl"
        (tmp_path / "kc-ctl").write_text(yaml.safe_dump(doc))
        who = subprocess.run(["kubectl", "--kubeconfig", str(tmp_path / "kc-ctl"), "auth", "whoami", "-o", "json"],
                             capture_output=True, text=True, timeout=60, check=True)
        user = json.loads(who.stdout)["status"]["userInfo"]
        assert user["username"] == "system:serviceaccount:sys:ctl" and user["uid"] == "u1"
        assert user["groups"] == ["system:masters", "system:authenticated"]
        denied = subprocess.run(["kubectl", "--kubeconfig", str(tmp_path / "kc-ctl"), "--token", "wrong", "get", "ns"],
                                capture_output=True, text=True, timeout=60)
        assert denied.returncode != 0 and "provide credentials" in denied.stderr  # kubectl on a 401
    users = {json.loads(line)["user"]["username"] for line in audit.read_text().splitlines()}
    assert "system:serviceaccount:sys:ctl" in users
