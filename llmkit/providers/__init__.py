"""Model backends behind the Provider protocol; the HTTP ones are importable from here.

The local (llama-cpp) and rules providers live in their own modules and are imported only
where selected, so importing this package never loads llama_cpp.
"""

from llmkit.providers.gigachat import GigaChatProvider
from llmkit.providers.openai_compat import OpenAICompatProvider
from llmkit.providers.yandex import YandexGPTProvider

__all__ = ["GigaChatProvider", "OpenAICompatProvider", "YandexGPTProvider"]
