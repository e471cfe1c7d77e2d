using Microsoft.AspNetCore.Mvc;

namespace Parcelly.Api.Shipping;

[ApiController]
[Route("hooks/carrier")]
public sealed class CarrierWebhook(IShipmentStore store, ILogger<CarrierWebhook> log) : ControllerBase
{
    public sealed record CarrierEvent(string TrackingCode, string Kind, DateTimeOffset At, string? Depot);

    [HttpPost]
    public async Task<IActionResult> Receive(CarrierEvent evt)
    {
        if (Map(evt.Kind) is not { } next)
        {
            log.LogInformation("ignoring carrier event {Kind} for {Code}", evt.Kind, evt.TrackingCode);
            return Accepted();
        }
        var shipment = await store.FindAsync(evt.TrackingCode);
        if (shipment is null)
        {
            return NotFound();
        }
        if (shipment.Advance(next, evt.At, evt.Depot))
        {
            await store.SaveAsync(shipment);
        }
        return Ok();
    }

    private static ShipmentStatus? Map(string kind) => kind switch
    {
        "dropped_off" => ShipmentStatus.AwaitingPickup,
        "collected" or "depot_scan" => ShipmentStatus.InTransit,
        "on_vehicle" => ShipmentStatus.OutForDelivery,
        "delivered" => ShipmentStatus.Delivered,
        "returned_to_sender" => ShipmentStatus.Returned,
        _ => null,
    };
}
