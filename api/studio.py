"""REST endpoints of the studio's data for the planning tools: the rate card and portfolio to
read (studio:read), the production calendar to read and to push periods into
(calendar:write), each pushed period keyed by the tool's own id."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.models import ApiToken
from api.serializers import IdField, SaneDateField, TextField
from studio.models import CalendarPeriod, PortfolioItem, RateCardItem
from studio.services import calendar_period_delete, calendar_period_upsert


class RateCardItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = RateCardItem
        fields = ["code", "title", "kind", "unit", "price_min", "price_max", "currency",
                  "price_factors", "production_days", "active", "updated_at"]  # fmt: skip


class PortfolioItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = PortfolioItem
        fields = ["id", "title", "client", "kind", "tags", "year", "link", "may_be_shown",
                  "description"]  # fmt: skip


class CalendarPeriodSerializer(serializers.ModelSerializer):
    class Meta:
        model = CalendarPeriod
        fields = ["id", "starts_on", "ends_on", "status", "note", "source", "external_id",
                  "updated_at"]  # fmt: skip
        read_only_fields = ["id", "source", "updated_at"]


class CalendarPushSerializer(serializers.Serializer):
    external_id = IdField(max_length=100)
    starts_on = SaneDateField()
    ends_on = SaneDateField()
    status = serializers.ChoiceField(choices=CalendarPeriod.Status.choices)
    note = TextField(max_length=200, required=False, default="", allow_blank=True)

    def validate(self, attrs):
        if attrs["starts_on"] > attrs["ends_on"]:
            raise serializers.ValidationError({"ends_on": "ends before it starts"})
        return attrs


def _source(request: Request) -> str:
    """A token pushes under its own name; a person in the browsable API as 'admin'."""
    return request.auth.name[:60] if isinstance(request.auth, ApiToken) else "admin"


class RateCardList(generics.ListAPIView):
    """The rate card: services, units, price ranges, currency, what changes the price."""

    scopes = {"read": "studio:read"}
    serializer_class = RateCardItemSerializer
    pagination_class = None
    queryset = RateCardItem.objects.order_by("order", "code")


class PortfolioList(generics.ListAPIView):
    """The portfolio, with the flag saying whether a work may be shown to clients."""

    scopes = {"read": "studio:read"}
    serializer_class = PortfolioItemSerializer
    queryset = PortfolioItem.objects.order_by("-year", "title", "id")


class CalendarList(APIView):
    """The production calendar's busy and tentative periods; POST creates or replaces one
    period by the caller's `external_id`."""

    scopes = {"read": "studio:read", "write": "calendar:write"}

    @extend_schema(responses={200: CalendarPeriodSerializer(many=True)})
    def get(self, request: Request) -> Response:
        periods = CalendarPeriod.objects.order_by("starts_on", "id")
        return Response(CalendarPeriodSerializer(periods, many=True).data)

    @extend_schema(
        request=CalendarPushSerializer,
        responses={200: CalendarPeriodSerializer, 201: CalendarPeriodSerializer},
    )
    def post(self, request: Request) -> Response:
        push = CalendarPushSerializer(data=request.data)
        push.is_valid(raise_exception=True)
        period, created = calendar_period_upsert(source=_source(request), **push.validated_data)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(CalendarPeriodSerializer(period).data, status=code)


class CalendarPeriodDelete(APIView):
    """Remove a period the caller pushed, by its own id."""

    scopes = {"read": "studio:read", "write": "calendar:write"}

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, external_id: str) -> Response:
        if not calendar_period_delete(source=_source(request), external_id=external_id):
            return Response(
                {"error": {"code": "not_found", "message": "No such period.", "fields": {}}},
                status=status.HTTP_404_NOT_FOUND,
            )
        return Response(status=status.HTTP_204_NO_CONTENT)
