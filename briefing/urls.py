"""URLs of the briefing app: the producer's pages and the client's chat."""

from django.urls import path

from briefing.client import views_client
from briefing.producer import views_producer, views_profile
from briefing.results import views_results

urlpatterns = [
    path("", views_producer.dashboard, name="dashboard"),
    # The navigation's language switcher: a cookie, and the user's profile when logged in.
    path("i18n/setlang/", views_profile.language_set, name="set_language"),
    path("briefings/new/", views_producer.project_new, name="project_new"),
    path("results/", views_results.results, name="results"),
    path("results/export.<str:fmt>", views_results.results_export, name="results_export"),
    path("briefings/<int:pk>/", views_producer.project_detail, name="project_detail"),
    path("briefings/<int:pk>/action/", views_producer.project_action, name="project_action"),
    path("inbox/unread/", views_producer.inbox_unread, name="inbox_unread"),
    path("replies/", views_producer.canned_replies_page, name="canned_replies"),
    path("c/<str:token>/", views_client.client_chat, name="client_chat"),
    path("c/<str:token>/messages/", views_client.client_messages, name="client_messages"),
]
