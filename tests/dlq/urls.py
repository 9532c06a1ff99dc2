"""The project's URLs with the dlq app mounted where config/urls.py mounts it."""

from django.urls import include, path

from config.urls import urlpatterns as project_urlpatterns

urlpatterns = [path("dlq/", include("dlq.urls")), *project_urlpatterns]
