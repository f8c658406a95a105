"""Agent profiles -> prompts -> constrained generation -> briefs with verified evidence."""

from concord.agents.profiles import AgentProfile, AgentRole, load_profiles
from concord.agents.prompts import build_record_block
from concord.agents.runner import propose_operation, run_agent

__all__ = [
    "AgentProfile",
    "AgentRole",
    "build_record_block",
    "load_profiles",
    "propose_operation",
    "run_agent",
]
