"""URL configuration."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from config import site_views

urlpatterns = [
    path("favicon.ico", site_views.favicon, name="favicon"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("dlq/", include("dlq.urls")),
    path("crm/", include("crm.urls")),
    path("studio/", include("studio.urls")),
    path("api/", site_views.api_index, name="api_index"),
    path("api/v1/", include("api.urls")),
    path("", include("ops.urls")),
    path("", include("briefing.urls")),
]

# An unknown path under /api/ answers in the API's error shape.
handler404 = "api.views.not_found"
