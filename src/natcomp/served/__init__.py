"""Models behind an OpenAI-compatible API (vLLM, SGLang, TGI, llama.cpp, Ollama,
``transformers serve``, hosted APIs) as natcomp models: the families that need only text
out (MT by prompting, PLANE prompting) and, where the server gives them, prompt
log-probabilities in. ``endpoint``: where the model is, its key (read from the
environment, never written), the requests' settings and :func:`probe`; ``model``:
:class:`ServedModel`, the answers, cached as they arrive, and their usage. See docs/llm.md.
"""

from natcomp.served.endpoint import (
    NO_KEY,
    Capabilities,
    RequestSettings,
    ServedEndpoint,
    ServedError,
    probe,
    prompt_logprobs_problem,
    sampling_parameters,
    served_endpoint,
)
from natcomp.served.estimate import RequestEstimate, format_estimates
from natcomp.served.model import USAGE_FOLDER, Answer, PromptLogprobs, ServedModel, cut_at_stop, usage_path

__all__ = [
    "NO_KEY",
    "USAGE_FOLDER",
    "Answer",
    "Capabilities",
    "PromptLogprobs",
    "RequestEstimate",
    "RequestSettings",
    "ServedEndpoint",
    "ServedError",
    "ServedModel",
    "cut_at_stop",
    "format_estimates",
    "probe",
    "prompt_logprobs_problem",
    "sampling_parameters",
    "served_endpoint",
    "usage_path",
]
