#!/usr/bin/env python3
"""Regenerates the reference trajectories of agent/fidelity_v1_test.go with mini-swe-agent 1.x.

Each scenario feeds recorded model replies and command outputs (including timeouts) to the real
1.x loop (minisweagent.agents.default.DefaultAgent) with a real 1.x config, and saves what it
produced with 1.x's own save_traj, plus the inputs under "replay_inputs". The Go test replays the
same inputs through swebench-run's 1.x loop and requires the same messages, exit status,
submission and model stats.

Usage (no network; Python 3.10+ with jinja2 and PyYAML):
    git -C MINI archive v1.17.5 src | tar -x -C /tmp/mswea-1.17.5
    python3 generate.py /tmp/mswea-1.17.5
MINI is a clone of github.com/SWE-agent/mini-swe-agent. Modules 1.x imports only for its
console (rich, platformdirs, dotenv) are replaced by stand-ins when they are not installed.
"""

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent


def install_stand_ins():
    """Stand-ins for the console-only imports of minisweagent/__init__.py and utils/log.py."""
    import logging

    def module(name, **attrs):
        if name in sys.modules:
            return
        try:
            __import__(name)
            return
        except ImportError:
            pass
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m

    class Console:
        def print(self, *a, **k):
            pass

    class Panel:
        def __init__(self, *a, **k):
            pass

    class RichHandler(logging.StreamHandler):
        def __init__(self, *a, **k):
            super().__init__()

    module("rich")
    module("rich.console", Console=Console)
    module("rich.panel", Panel=Panel)
    module("rich.logging", RichHandler=RichHandler)
    module("platformdirs", user_config_dir=lambda name: tempfile.mkdtemp())
    module("dotenv", load_dotenv=lambda **k: None)


@dataclasses.dataclass
class RecordedModelConfig:
    """The fields of 1.x's LitellmModelConfig, so that info.config looks like a real run's."""

    model_name: str = "anthropic/claude-sonnet-4-5-20250929"
    model_kwargs: dict = dataclasses.field(default_factory=lambda: {"drop_params": True, "temperature": 0.0})
    litellm_model_registry: str | None = None
    set_cache_control: str | None = "default_end"
    cost_tracking: str = "default"


class RecordedModel:
    """Answers with recorded replies, each at a recorded cost (1.x's model contract)."""

    def __init__(self, replies, costs):
        self.config = RecordedModelConfig()
        self.replies, self.costs = replies, costs
        self.cost, self.n_calls = 0.0, 0

    def query(self, messages, **kwargs):
        reply = self.replies[self.n_calls]
        self.cost += self.costs[self.n_calls]
        self.n_calls += 1
        return {"content": reply}

    def get_template_vars(self):
        return dataclasses.asdict(self.config) | {"n_model_calls": self.n_calls, "model_cost": self.cost}


class RecordedEnv:
    """1.x's Docker environment with recorded outputs: a timed-out command raises what
    subprocess.run raises, with the bytes printed before the kill."""

    def __init__(self, config, steps):
        self.config, self.steps, self.n = config, steps, 0

    def execute(self, command, cwd=""):
        step = self.steps[self.n]
        self.n += 1
        assert step["command"] == command, (step["command"], command)
        if step["timed_out"]:
            raise subprocess.TimeoutExpired(command, self.config.timeout, output=step["output"].encode() or None)
        return {"output": step["output"], "returncode": step["returncode"]}

    def get_template_vars(self):
        return dataclasses.asdict(self.config)


def step(command, output, returncode=0, timed_out=False):
    return {"command": command, "output": output, "returncode": returncode, "timed_out": timed_out}


def reply(thought, command):
    return f"THOUGHT: {thought}\n\n```bash\n{command}\n```"


SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"
PATCH = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
TASK = "The function `add` returns the wrong sum for negative numbers."


def scenarios():
    """Inputs modelled on 1.x's own tests (tests/agents/test_default.py and
    tests/config/test_swebench_template.py at v1.17.5)."""
    long_ab = "A" * 8000 + "B" * 3000  # 11,000 characters: truncated
    long_multibyte = "é" * 6000 + "ß" * 6000  # characters, not bytes, are counted
    long_timeout = "START_" + "A" * 8000 + "B" * 3000 + "_END"
    return [
        {
            "name": "format_errors",
            "description": "no command block, then two blocks (format errors, the loop goes on), a block with blanks after ```bash, then a submission",
            "agent": {},
            "replies": [
                "No code blocks here",
                "Multiple blocks\n```bash\necho 'first'\n```\n```bash\necho 'second'\n```",
                "Blanks after the info string\n```bash   \nls -la\n```",
                "Now correct\n```bash\necho 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'\necho 'done'\n```",
            ],
            "steps": [
                step("ls -la", "total 0\n"),
                step("echo 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'\necho 'done'", "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndone\n"),
            ],
        },
        {
            "name": "timeouts",
            "description": "a command that times out after printing, one that times out silently, one whose partial output is over 10,000 characters (truncated by the timeout template), then a submission",
            "agent": {},
            "replies": [
                reply("Output then sleep.", "echo $((111*9)); sleep 10"),
                reply("A silent long command.", "sleep 100"),
                reply("A noisy long command.", "grep -R pattern ."),
                reply("Done.", SUBMIT),
            ],
            "steps": [
                step("echo $((111*9)); sleep 10", "999\n", timed_out=True),
                step("sleep 100", "", timed_out=True),
                step("grep -R pattern .", long_timeout, timed_out=True),
                step(SUBMIT, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n" + PATCH),
            ],
        },
        {
            "name": "truncation",
            "description": "observations of 11,000 characters, of exactly 10,000 (truncated), of 9,999 (shown in full) and of 12,000 two-byte characters, then a submission that failed (return code 1: an observation) and one that succeeded",
            "agent": {},
            "replies": [
                reply("Long output.", "python3 -c \"print('A'*8000+'B'*3000, end='')\""),
                reply("Exactly at the limit.", "printf 'X%.0s' $(seq 10000)"),
                reply("Just under.", "printf 'Y%.0s' $(seq 9999)"),
                reply("Multibyte.", "cat unicode.txt"),
                reply("Submit, but the diff fails.", SUBMIT),
                reply("Submit again.", SUBMIT),
            ],
            "steps": [
                step("python3 -c \"print('A'*8000+'B'*3000, end='')\"", long_ab),
                step("printf 'X%.0s' $(seq 10000)", "X" * 10000),
                step("printf 'Y%.0s' $(seq 9999)", "Y" * 9999),
                step("cat unicode.txt", long_multibyte, returncode=0),
                step(SUBMIT, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\nfatal: not a git repository\n", returncode=128),
                step(SUBMIT, "\n  COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT  \n" + PATCH),
            ],
        },
        {
            "name": "step_limit",
            "description": "step_limit 3 ends the run after three model calls, the third a format error: an empty user message, exit LimitsExceeded",
            "agent": {"step_limit": 3},
            "replies": [
                reply("One.", "ls"),
                reply("Two.", "false"),
                "Three, without a command.",
                reply("Never asked.", "ls"),
            ],
            "steps": [step("ls", "a.py\n"), step("false", "", returncode=1)],
        },
        {
            "name": "cost_limit",
            "description": "cost_limit 3.0 (the config's) with calls of $1.25: the third call reaches it, LimitsExceeded before the fourth",
            "agent": {},
            "cost": 1.25,
            "replies": [reply("One.", "ls"), reply("Two.", "ls"), reply("Three.", "ls"), reply("Never asked.", "ls")],
            "steps": [step("ls", "a.py\n"), step("ls", "a.py\n"), step("ls", "a.py\n")],
        },
        {
            "name": "defaults",
            "description": "a config with only an instance template and the legacy marker: 1.x's built-in templates (a format error; the observation prints the output dict as Python does; a timeout), MINI_SWE_AGENT_FINAL_OUTPUT submits",
            "config": "minimal",
            "agent": {"instance_template": "Task: {{task}} (model {{model_name}}, {{timeout}}s per command)"},
            "replies": [
                "A command in the wrong block\n```sh\nls\n```",
                "Quotes and escapes\n```bash\nprintf \"it's a \\\"test\\\"\\tok\\n\"\n```",
                "Unicode\n```bash\necho 'héllo → wörld'\n```",
                "Timeout\n```bash\nsleep 9\n```",
                "```bash\necho MINI_SWE_AGENT_FINAL_OUTPUT\n```",
            ],
            "steps": [
                step('printf "it\'s a \\"test\\"\\tok\\n"', "it's a \"test\"\tok\n"),
                step("echo 'héllo → wörld'", "héllo → wörld\n\x07", returncode=0),
                step("sleep 9", "", timed_out=True),
                step("echo MINI_SWE_AGENT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT\n"),
            ],
        },
    ]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src = Path(sys.argv[1]) / "src"
    sys.path.insert(0, str(src))
    os.environ["MSWEA_SILENT_STARTUP"] = "1"
    install_stand_ins()
    import yaml

    import minisweagent
    from minisweagent.agents.default import DefaultAgent
    from minisweagent.environments.docker import DockerEnvironmentConfig
    from minisweagent.run.utils.save import save_traj

    swebench = yaml.safe_load((src / "minisweagent/config/extra/swebench.yaml").read_text())
    for sc in scenarios():
        if sc.get("config") == "minimal":
            agent_cfg, env_cfg = dict(sc["agent"]), {"cwd": "/testbed", "timeout": 60}
        else:
            agent_cfg = swebench["agent"] | sc["agent"]
            env_cfg = {k: v for k, v in swebench["environment"].items() if k != "environment_class"}
        env_cfg["image"] = "docker.io/swebench/sweb.eval.x86_64.demo_1776_adder-1:latest"
        costs = [sc.get("cost", 0.5)] * len(sc["replies"])
        model = RecordedModel(sc["replies"], costs)
        env = RecordedEnv(DockerEnvironmentConfig(**env_cfg), sc["steps"])
        agent = DefaultAgent(model, env, **agent_cfg)
        exit_status, result = agent.run(TASK)
        out = HERE / f"{sc['name']}.traj.json"
        save_traj(
            agent,
            out,
            exit_status=exit_status,
            result=result,
            instance_id="demo__adder-1",
            print_path=False,
            replay_inputs={
                "generated_by": f"agent/testdata/mswea1/generate.py with mini-swe-agent {minisweagent.__version__}",
                "description": sc["description"],
                "task": TASK,
                "costs": costs[: model.n_calls],
                "replies": sc["replies"][: model.n_calls],
                "steps": sc["steps"][: env.n],
            },
        )
        print(f"{out.name}: {exit_status}, {len(agent.messages)} messages, {model.n_calls} calls, ${model.cost}")


if __name__ == "__main__":
    main()
