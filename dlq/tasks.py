"""Celery entry points of the dlq app."""

from celery import shared_task

from dlq.services import llm_check_run


@shared_task
def llm_check(source_id: str = "") -> None:
    llm_check_run(source_id=source_id)
