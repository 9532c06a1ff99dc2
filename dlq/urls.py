"""URLs of the dlq app: the parse-quality figures, the weekly digest and the dead-letter review."""

from django.urls import path

from dlq import views

app_name = "dlq"
urlpatterns = [
    path("quality.json", views.quality_json, name="quality_json"),
    path("digest/", views.digest_page, name="digest"),
    path("dead-letters/", views.dead_letters, name="dead_letters"),
    path("dead-letters/<int:pk>/", views.dead_letter_detail, name="dead_letter_detail"),
    path("dead-letters/<int:pk>/discard/", views.dead_letter_discard, name="dead_letter_discard"),
    path("dead-letters/<int:pk>/fix/", views.dead_letter_fix, name="dead_letter_fix"),
]
