"""URLs of CRM intake: the managers' pages and the inbound endpoints of the web form and the
messenger webhook."""

from django.urls import path

from crm import views, views_inbound

app_name = "crm"
urlpatterns = [
    path("leads/", views.lead_list, name="leads"),
    path("leads/<int:pk>/", views.lead_detail, name="lead_detail"),
    path("leads/<int:pk>/briefing/", views.lead_start_briefing, name="lead_start_briefing"),
    path("human/", views.human_queue, name="human_queue"),
    path("messages/<int:pk>/", views.message_detail, name="message_detail"),
    path("messages/<int:pk>/raw/", views.message_raw, name="message_raw"),
    path("messages/<int:pk>/lead/", views.message_create_lead, name="message_create_lead"),
    path("inbound/form/", views_inbound.form_submit, name="inbound_form"),
    path("inbound/messenger/", views_inbound.messenger_webhook, name="inbound_messenger"),
]
