"""Plain SMTP, one message at a time. Failures are logged, never raised at a shopper."""

import logging
import smtplib
from email.message import EmailMessage

log = logging.getLogger(__name__)


def send(smtp_host: str, sender: str, to: str, subject: str, body: str) -> bool:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg.set_content(body)
    try:
        with smtplib.SMTP(smtp_host, timeout=10) as smtp:
            smtp.send_message(msg)
    except (OSError, smtplib.SMTPException) as e:
        log.warning("could not send %r to %s: %s", subject, to, e)
        return False
    return True
