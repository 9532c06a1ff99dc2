"""The metrics page (the probes are answered by ops.middleware)."""

from django.urls import path

from ops import views

urlpatterns = [path("metrics", views.metrics, name="metrics")]
