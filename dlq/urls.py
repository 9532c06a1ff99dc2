"""URLs of the dlq app: the parse-quality figures and the weekly digest page."""

from django.urls import path

from dlq import views

app_name = "dlq"
urlpatterns = [
    path("quality.json", views.quality_json, name="quality_json"),
    path("digest/", views.digest_page, name="digest"),
]
