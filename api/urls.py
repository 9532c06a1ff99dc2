"""URLs of the REST API, versioned under /api/v1/."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from api import studio, views

LIST, DETAIL = {"get": "list"}, {"get": "retrieve"}

app_name = "api"
urlpatterns = [
    path("briefings/", views.BriefingList.as_view(), name="briefings"),
    path("briefings/<int:pk>/", views.BriefingDetail.as_view(), name="briefing"),
    path("briefings/<int:pk>/messages/", views.BriefingMessages.as_view(), name="messages"),
    path("briefings/<int:pk>/stages/", views.BriefingStages.as_view(), name="stages"),
    path("briefings/<int:pk>/events/", views.BriefingEvents.as_view(), name="events"),
    path("briefs/", views.BriefList.as_view(), name="briefs"),
    path("briefs/<int:pk>/", views.BriefDetail.as_view(), name="brief"),
    path("schemas/brief.json", views.BriefSchema.as_view(), name="brief_schema"),
    path("leads/", views.LeadViewSet.as_view(LIST), name="leads"),
    path("leads/<int:pk>/", views.LeadViewSet.as_view(DETAIL), name="lead"),
    path("dead-letters/", views.DeadLetterViewSet.as_view(LIST), name="dead_letters"),
    path("dead-letters/<int:pk>/", views.DeadLetterViewSet.as_view(DETAIL), name="dead_letter"),
    path("studio/rate-card/", studio.RateCardList.as_view(), name="rate_card"),
    path("studio/portfolio/", studio.PortfolioList.as_view(), name="portfolio"),
    path("studio/calendar/", studio.CalendarList.as_view(), name="calendar"),
    path(
        "studio/calendar/<str:external_id>/",
        studio.CalendarPeriodDelete.as_view(),
        name="calendar_period",
    ),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file: the CSP allows no inline script.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
]
