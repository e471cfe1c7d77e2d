namespace Parcelly.Api.Shipping;

/// <summary>Where a parcel is on its way to the recipient.</summary>
public enum ShipmentStatus
{
    Created,
    InTransit,
    OutForDelivery,
    Delivered,
    Returned,
}
