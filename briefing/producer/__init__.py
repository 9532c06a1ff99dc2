"""The producer's desk: the dashboard, a new briefing and one briefing's live page with every
producer action (`views.py`, `forms.py`), the user's own language (`views_profile.py`,
`profiles.py`) and the inbox's unread count in every page's navigation
(`context_processors.py`, named in settings).

A top room: it may import `services`, `tasks`, `turn`, `common` and `models`; nothing in
briefing imports it but `urls.py` and `apps.py` (crm's lead page borrows its
`forms.producer_choices`).
"""
