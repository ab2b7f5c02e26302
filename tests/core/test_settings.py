"""Settings precedence: init > env AMBER_* > `amber:` in config.yaml > defaults — one test per edge."""

from __future__ import annotations

import pytest

from core import Settings


@pytest.fixture
def yaml_config(tmp_path, monkeypatch):
    path = tmp_path / "config.yaml"
    path.write_text(
        "model_list: []\n"
        "amber:\n"
        "  recall_budget_tokens: 700\n"
        "  port: 4200\n"
        "  llm_model: yaml-model\n"
        "  api_keys:\n"
        "    - {name: owui, secret: os.environ/TEST_OWUI_KEY, trusted_client: true}\n"
    )
    monkeypatch.setenv("AMBER_CONFIG", str(path))
    for var in ("AMBER_RECALL_BUDGET_TOKENS", "AMBER_PORT", "AMBER_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    return path


def test_defaults_when_nothing_is_set(monkeypatch, tmp_path):
    monkeypatch.setenv("AMBER_CONFIG", str(tmp_path / "missing.yaml"))
    monkeypatch.delenv("AMBER_PORT", raising=False)
    s = Settings()
    assert s.port == 4100 and s.host == "127.0.0.1" and s.embedding_model == "local"


def test_yaml_beats_defaults(yaml_config):
    assert Settings().recall_budget_tokens == 700


def test_env_beats_yaml(yaml_config, monkeypatch):
    monkeypatch.setenv("AMBER_PORT", "4300")
    assert Settings().port == 4300
    assert Settings().llm_model == "yaml-model"


def test_init_beats_env(yaml_config, monkeypatch):
    monkeypatch.setenv("AMBER_LLM_MODEL", "env-model")
    assert Settings().llm_model == "env-model"
    assert Settings(llm_model="init-model").llm_model == "init-model"


def test_secrets_in_yaml_come_from_the_environment(yaml_config, monkeypatch):
    monkeypatch.setenv("TEST_OWUI_KEY", "s3cret-from-env")
    key = Settings().api_keys[0]
    assert key.secret == "s3cret-from-env" and key.trusted_client


def test_env_lists_parse_as_json(monkeypatch, tmp_path):
    monkeypatch.setenv("AMBER_CONFIG", str(tmp_path / "missing.yaml"))
    monkeypatch.setenv("AMBER_API_KEYS", '[{"name": "cli", "secret": "k", "user": "alice", "scopes": ["memory:read"]}]')
    key = Settings().api_keys[0]
    assert (key.user, key.scopes) == ("alice", ["memory:read"])


@pytest.mark.parametrize("name, value", [
    ("jobs_messages_days", -1),  # retention would erase every turn, unextracted ones included
    ("jobs_unused_days", 0),  # ... and every memory
    ("jobs_purge_after_days", -5),
    ("recall_budget_tokens", -5),  # every recall empty, nothing logged
    ("recall_timeout_s", 0),
    ("jobs_seen_cosine", 1.5),
    ("timezone", "Mars/Phobos"),  # the host died at start with a traceback
    ("extract_cron", "bogus"),
    ("retention_cron", "61 25 * * *"),
])
def test_an_absurd_value_is_refused_by_name(name, value, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=name if not isinstance(value, str) or name == "timezone" else "crontab"):
        Settings(**{name: value})
    monkeypatch.setenv(f"AMBER_{name.upper()}", str(value))
    with pytest.raises(ValueError, match=name):
        Settings()
