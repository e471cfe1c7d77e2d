using Microsoft.AspNetCore.Mvc;

namespace Parcelly.Api.Shipping;

[ApiController]
[Route("api/shipments")]
public sealed class ShipmentsController(IShipmentStore store) : ControllerBase
{
    public sealed record ShipmentDto(string TrackingCode, ShipmentStatus Status, DateTimeOffset UpdatedAt,
        IReadOnlyList<ShipmentEvent> History);

    [HttpGet("{code}")]
    public async Task<ActionResult<ShipmentDto>> Get(string code, [FromQuery] string postcode)
    {
        var shipment = await store.FindAsync(code);
        // The postcode is the recipient's proof of interest; a wrong one looks like a missing parcel.
        if (shipment is null || !PostcodesMatch(shipment.RecipientPostcode, postcode))
        {
            return NotFound();
        }
        return new ShipmentDto(shipment.TrackingCode, shipment.Status, shipment.UpdatedAt, shipment.History);
    }

    private static bool PostcodesMatch(string expected, string given) =>
        string.Equals(expected.Replace(" ", ""), given.Replace(" ", ""), StringComparison.OrdinalIgnoreCase);
}

public interface IShipmentStore
{
    Task<Shipment?> FindAsync(string trackingCode);
    Task SaveAsync(Shipment shipment);
}
