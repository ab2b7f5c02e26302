"""`amber doctor` says whether memory is encrypted at rest and where the master key comes from,
before it looks for a host: off, a key in the environment, a key file, or a Chroma
server whose records are not sealed."""

from __future__ import annotations

import os
import secrets

import pytest

from mcp_server.cli import main
from tests.kit.servers import free_port


@pytest.fixture
def doctor_says(tmp_path, monkeypatch, capsys):
    def run(**env: str) -> list[str]:
        capsys.readouterr()
        with monkeypatch.context() as m:
            for name in [n for n in os.environ if n.startswith(("AMBER_", "OPENAI_", "LITELLM_MASTER"))]:
                m.delenv(name)
            for name, value in {"AMBER_CONFIG": str(tmp_path / "none.yaml"), "AMBER_EMBEDDING_MODEL": "hash",
                                "AMBER_DATA_DIR": str(tmp_path / "data"), **env}.items():
                m.setenv(name, value)
            m.chdir(tmp_path)
            main(["doctor", "--url", f"http://127.0.0.1:{free_port()}"])  # nobody answers there: only the local checks
        return [x for x in capsys.readouterr().out.splitlines() if "encryption at rest" in x]

    return run


def test_doctor_reports_encryption_at_rest_and_the_key_source(doctor_says, tmp_path):
    key = secrets.token_hex(32)
    [off] = doctor_says()
    assert off.startswith("[note") and "encryption at rest: off" in off and "AMBER_MASTER_KEY" in off
    [env] = doctor_says(AMBER_MASTER_KEY=key)
    assert env.startswith("[ok") and "on (master key from the master_key setting / AMBER_MASTER_KEY)" in env
    assert "back the key up" in env and key not in env  # never the key itself
    keyfile = tmp_path / "secrets" / "amber.key"
    keyfile.parent.mkdir()
    keyfile.write_text(key)
    [file] = doctor_says(AMBER_MASTER_KEY_FILE=str(keyfile))
    assert file.startswith("[ok") and f"on (master key from {keyfile})" in file and key not in file
    [server] = doctor_says(AMBER_CHROMA_URL="http://127.0.0.1:9", AMBER_MASTER_KEY=key)
    assert "records in a Chroma server are not sealed" in server
