namespace Parcelly.Api.Shipping;

public sealed class Shipment
{
    public required string TrackingCode { get; init; }
    public required string RecipientPostcode { get; init; }
    public ShipmentStatus Status { get; private set; } = ShipmentStatus.Created;
    public DateTimeOffset UpdatedAt { get; private set; }
    public List<ShipmentEvent> History { get; } = new();

    /// <summary>Moves the parcel on. Carriers resend events, so a repeat is ignored.</summary>
    public bool Advance(ShipmentStatus next, DateTimeOffset at, string? note = null)
    {
        if (next == Status)
        {
            return false;
        }
        if (Status is ShipmentStatus.Delivered or ShipmentStatus.Returned)
        {
            throw new InvalidOperationException(
                $"shipment {TrackingCode} is already {Status} and cannot become {next}");
        }
        Status = next;
        UpdatedAt = at;
        History.Add(new ShipmentEvent(next, at, note));
        return true;
    }
}

public sealed record ShipmentEvent(ShipmentStatus Status, DateTimeOffset At, string? Note);
