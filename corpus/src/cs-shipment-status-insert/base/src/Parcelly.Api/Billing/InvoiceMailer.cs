namespace Parcelly.Api.Billing;

/// <summary>
/// Sends a shop its monthly invoice. Parcels count once their shipment status says
/// they were delivered or returned; the ledger has already applied that rule, so
/// this class only formats and sends.
/// </summary>
public sealed class InvoiceMailer(IMailTransport mail)
{
    public Task SendAsync(Invoice invoice)
    {
        var subject = $"Parcelly invoice {invoice.Number} ({invoice.Month:yyyy-MM})";
        var body = string.Join("\n", new[]
        {
            $"Parcels delivered: {invoice.DeliveredCount}",
            $"Parcels returned: {invoice.ReturnedCount}",
            $"Amount due: {invoice.TotalPence / 100m:0.00} GBP",
        });
        return mail.SendAsync(invoice.BillingEmail, subject, body);
    }
}

public sealed record Invoice(string Number, DateOnly Month, string BillingEmail, int DeliveredCount,
    int ReturnedCount, long TotalPence);

public interface IMailTransport
{
    Task SendAsync(string to, string subject, string body);
}
