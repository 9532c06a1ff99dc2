"""URLs of the studio's back-office pages: the rate card, the portfolio and the production
calendar (studio.views)."""

from django.urls import path

from studio import views

app_name = "studio"
urlpatterns = [
    path("", views.studio_index, name="index"),
    path("<slug:section>/", views.item_list, name="list"),
    path("<slug:section>/new/", views.item_new, name="new"),
    path("<slug:section>/<int:pk>/", views.item_edit, name="edit"),
    path("<slug:section>/<int:pk>/delete/", views.item_delete, name="delete"),
]
