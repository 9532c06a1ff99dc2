"""URLs of the briefing app: the producer's pages and the client's chat."""

from django.urls import path

from briefing.client import views as client_views
from briefing.producer import views as producer_views
from briefing.producer import views_profile
from briefing.results import views as results_views

urlpatterns = [
    path("", producer_views.dashboard, name="dashboard"),
    # The navigation's language switcher: a cookie, and the user's profile when logged in.
    path("i18n/setlang/", views_profile.language_set, name="set_language"),
    path("briefings/new/", producer_views.project_new, name="project_new"),
    path("results/", results_views.results, name="results"),
    path("results/export.<str:fmt>", results_views.results_export, name="results_export"),
    path("briefings/<int:pk>/", producer_views.project_detail, name="project_detail"),
    path("briefings/<int:pk>/action/", producer_views.project_action, name="project_action"),
    path("inbox/unread/", producer_views.inbox_unread, name="inbox_unread"),
    path("replies/", producer_views.canned_replies_page, name="canned_replies"),
    path("c/<str:token>/", client_views.client_chat, name="client_chat"),
    path("c/<str:token>/messages/", client_views.client_messages, name="client_messages"),
]
