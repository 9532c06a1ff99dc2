"""URLs of the dlq app: the parse-quality figures, the weekly digest and the dead-letter review."""

from django.urls import path

from dlq import views, views_quality

app_name = "dlq"
urlpatterns = [
    path("quality/", views_quality.quality_dashboard, name="quality"),
    path("quality.json", views_quality.quality_json, name="quality_json"),
    path("digest/", views_quality.digest_page, name="digest"),
    path("dead-letters/", views.dead_letters, name="dead_letters"),
    path("dead-letters/<int:pk>/", views.dead_letter_detail, name="dead_letter_detail"),
    path("dead-letters/<int:pk>/discard/", views.dead_letter_discard, name="dead_letter_discard"),
    path("dead-letters/<int:pk>/fix/", views.dead_letter_fix, name="dead_letter_fix"),
    path(
        "dead-letters/<int:pk>/fix/check/",
        views.dead_letter_fix_check,
        name="dead_letter_fix_check",
    ),
    path("dead-letters/<int:pk>/replay/", views.dead_letter_replay, name="dead_letter_replay"),
    path("dead-letters/<int:pk>/help/", views.dead_letter_help, name="dead_letter_help"),
    path("dead-letters/replay/", views.dead_letters_replay_group, name="dead_letters_replay_group"),
]
