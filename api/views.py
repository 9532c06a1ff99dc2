"""REST API v1: briefings an integration runs, finished briefs, leads and dead letters.

Every view says which scope it needs for reading and for writing (`scopes`, checked by the
default permission class, api.auth.HasScope); a token sees the briefings it created, a
logged-in person what the back office would show them."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers as s
from api.models import ApiToken, TokenProject
from api.pagination import Keyset
from briefing.common.access import projects_for_user
from briefing.models import BriefingEvent, Project
from briefing.services import client_message_receive, project_create
from briefing.turn.brief import Brief, brief_json_schema
from crm.models import Lead
from dlq.models import DeadLetter

EVENTS_LIMIT_MAX = 500


def projects_for(request: Request) -> QuerySet[Project]:
    """The briefings a caller may see: a token's own, or a person's as in the back office."""
    if isinstance(request.auth, ApiToken):
        return Project.objects.filter(api_link__token=request.auth)
    return projects_for_user(request.user)


class BriefingView:
    scopes = {"read": "briefings:read", "write": "briefings:write"}

    def project(self) -> Project:
        return get_object_or_404(projects_for(self.request), pk=self.kwargs["pk"])


class BriefingList(BriefingView, generics.ListAPIView):
    """The briefings this caller may see, newest first, a page at a time (follow `next`);
    POST creates one."""

    serializer_class = s.BriefingSerializer
    pagination_class = Keyset
    keyset = ("-created_at", "-id")

    def get_queryset(self):
        return projects_for(self.request)

    @extend_schema(request=s.BriefingCreateSerializer, responses={201: s.BriefingSerializer})
    def post(self, request: Request) -> Response:
        data = s.BriefingCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            project = project_create(**data.validated_data)
            if isinstance(request.auth, ApiToken):
                TokenProject.objects.create(token=request.auth, project=project)
        return Response(s.BriefingSerializer(project).data, status=status.HTTP_201_CREATED)


class BriefingDetail(BriefingView, generics.RetrieveAPIView):
    serializer_class = s.BriefingSerializer

    def get_object(self) -> Project:
        return self.project()


class BriefingMessages(BriefingView, generics.ListAPIView):
    """The transcript, oldest first; POST stores a client message at once (202) and the
    agent's reply arrives asynchronously: poll the transcript or the events."""

    serializer_class = s.TurnSerializer

    def get_queryset(self):
        return self.project().turns.order_by("seq")

    @extend_schema(
        request=s.MessageCreateSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[!-~]+$"},
                OpenApiParameter.HEADER,
                description="A key of your choosing for this message (a UUID): sent again "
                "with the same key, the message is stored once and the stored turn is "
                "answered (header Idempotent-Replayed: true); the same key with another "
                "text is refused with 422.",
            )
        ],
        responses={
            202: s.TurnSerializer,
            422: OpenApiResponse(description="The Idempotency-Key was used for another text"),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        project = self.project()
        data = s.MessageCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # Counted per briefing (CLIENT_CHAT_RATE_PER_LINK); the caller's own rate is the
        # per-token throttle: an integration relays many clients from one address.
        receipt = client_message_receive(
            project=project,
            text=data.validated_data["text"],
            idempotency_key=request.headers.get("Idempotency-Key"),
            sender_address=None,
            channel="api",
        )
        response = Response(s.TurnSerializer(receipt.turn).data, status=status.HTTP_202_ACCEPTED)
        if receipt.replayed:
            response["Idempotent-Replayed"] = "true"
        return response


class BriefingStages(BriefingView, generics.ListAPIView):
    serializer_class = s.StageSerializer
    pagination_class = None

    def get_queryset(self):
        return self.project().stages.order_by("order")


class BriefingEvents(BriefingView, APIView):
    """The briefing's events in order, after the event id `after` (0: from the start): keep
    `next_after` and ask again to get everything since."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0, "default": 0},
                description="Events with a greater id",
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": EVENTS_LIMIT_MAX, "default": 100},
            ),
        ],
        responses=s.EventPageSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        after = _int_param(request, "after", 0, minimum=0)
        limit = _int_param(request, "limit", 100, minimum=1, maximum=EVENTS_LIMIT_MAX)
        events = list(
            BriefingEvent.objects.filter(project=self.project(), pk__gt=after).order_by("pk")[
                : limit + 1
            ]
        )
        page = events[:limit]
        return Response(
            {
                "results": s.EventSerializer(page, many=True).data,
                "next_after": page[-1].pk if page else after,
                "has_more": len(events) > limit,
            }
        )


def _int_param(
    request: Request, name: str, default: int, *, minimum: int, maximum: int | None = None
) -> int:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError({name: "a whole number"}) from None
    if value < minimum or (maximum is not None and value > maximum):
        limit = f"between {minimum} and {maximum}" if maximum is not None else f">= {minimum}"
        raise ValidationError({name: f"must be {limit}"})
    return value


class BriefScope:
    scopes = {"read": "briefs:read"}

    def completed(self) -> QuerySet[Project]:
        projects = (
            Project.objects.all()
            if isinstance(self.request.auth, ApiToken)
            else projects_for_user(self.request.user)
        )
        return projects.filter(status=Project.Status.COMPLETED, brief__isnull=False)


class BriefList(BriefScope, generics.ListAPIView):
    """Completed briefs, oldest completion first, a page at a time (follow `next`);
    `?since=` (ISO 8601) gives the ones completed after that moment."""

    serializer_class = s.BriefSummarySerializer
    pagination_class = Keyset
    keyset = ("completed_at", "id")

    @extend_schema(
        parameters=[OpenApiParameter("since", OpenApiTypes.DATETIME, description="ISO 8601")]
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        projects = self.completed()
        since = self.request.query_params.get("since")
        if since is not None:
            field = serializers.DateTimeField()
            try:
                projects = projects.filter(completed_at__gt=field.to_internal_value(since))
            except serializers.ValidationError as error:
                raise ValidationError({"since": error.detail}) from None
        return projects


class BriefDetail(BriefScope, APIView):
    """The final brief of a completed briefing, validated against the published schema, and
    its markdown summary."""

    @extend_schema(responses=s.BriefSerializer)
    def get(self, request: Request, pk: int) -> Response:
        project = get_object_or_404(self.completed(), pk=pk)
        brief = Brief.model_validate(project.brief).model_dump(mode="json")
        return Response(
            {
                "id": project.pk,
                "title": project.title,
                "completed_at": project.completed_at,
                "brief": brief,
                "summary_markdown": project.summary_markdown,
                "schema": request.build_absolute_uri(reverse("api:brief_schema")),
            }
        )


class BriefSchema(APIView):
    """The Brief JSON Schema (generated from the pydantic model) that briefs validate against."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: dict})
    def get(self, request: Request) -> Response:
        return Response(brief_json_schema())


class LeadViewSet(viewsets.ReadOnlyModelViewSet):
    """Leads, newest message first, a page at a time (follow `next`; read-only)."""

    scopes = {"read": "leads:read"}
    serializer_class = s.LeadSerializer
    queryset = Lead.objects.order_by("-last_message_at", "-id")
    pagination_class = Keyset
    keyset = ("-last_message_at", "-id")


class DeadLetterViewSet(viewsets.ReadOnlyModelViewSet):
    """Dead letters, newest first, a page at a time (follow `next`; read-only)."""

    scopes = {"read": "dlq:read"}
    serializer_class = s.DeadLetterSerializer
    queryset = DeadLetter.objects.order_by("-created_at", "-id")
    pagination_class = Keyset
    keyset = ("-created_at", "-id")


def not_found(request, exception=None):
    """The 404 of a path nothing serves: the API's error shape under /api/, else Django's."""
    from django.http import JsonResponse
    from django.views.defaults import page_not_found

    if request.path.startswith("/api/"):
        return JsonResponse(
            {"error": {"code": "not_found", "message": "Not found.", "fields": {}}}, status=404
        )
    return page_not_found(request, exception)
