"""A scripted model: a local provider any agent can be driven by, to check its wiring for free.

``ScriptedModel`` (server.py) is a real HTTP server speaking the OpenAI, Anthropic and Gemini
APIs, plain and streamed (wire.py); a ``Player`` (player.py) answers each request with the next
step of a task's solution, called through whichever shell tool the agent offers.
"""

from reclaim.agents.scripted.player import (
    DONE,
    TEXT_FORMATS,
    Player,
    Solutions,
    shell_tool,
    solution_steps,
    solution_text,
    task_of,
)
from reclaim.agents.scripted.server import ScriptedModel, Served, protocol_of
from reclaim.agents.scripted.wire import PROTOCOLS, Call, Reply

__all__ = ["DONE", "PROTOCOLS", "TEXT_FORMATS", "Call", "Player", "Reply", "ScriptedModel", "Served", "Solutions",
           "protocol_of", "shell_tool", "solution_steps", "solution_text", "task_of"]
