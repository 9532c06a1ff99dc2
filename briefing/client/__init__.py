"""The client's chat page (`views.py`): only the conversation, in the client's language, with
or without JavaScript.

A top room: it imports `services`, `common` and `models`; nothing in briefing imports it but
`urls.py`.
"""
