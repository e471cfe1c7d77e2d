namespace Parcelly.Api.Warehouse;

/// <summary>A loading dock at a depot. Docks have a state of their own, unrelated to parcels.</summary>
public sealed class Dock
{
    public required string Id { get; init; }
    public DockStatus Status { get; private set; } = DockStatus.Idle;
    public string? VehicleReg { get; private set; }

    public void StartLoading(string vehicleReg)
    {
        if (Status != DockStatus.Idle)
        {
            throw new InvalidOperationException($"dock {Id} is {Status}, not idle");
        }
        VehicleReg = vehicleReg;
        Status = DockStatus.Loading;
    }

    public void Depart() => Status = DockStatus.InTransit;

    public void Free()
    {
        VehicleReg = null;
        Status = DockStatus.Idle;
    }
}

public enum DockStatus
{
    Idle = 10,
    Loading = 20,
    InTransit = 30,
}
