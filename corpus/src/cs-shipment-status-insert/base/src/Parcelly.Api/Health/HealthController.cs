using Microsoft.AspNetCore.Mvc;

namespace Parcelly.Api.Health;

[ApiController]
[Route("healthz")]
public sealed class HealthController(IDatabaseProbe probe) : ControllerBase
{
    [HttpGet]
    public async Task<IActionResult> Get()
    {
        var started = DateTimeOffset.UtcNow;
        var reachable = await probe.CanConnectAsync(TimeSpan.FromSeconds(2));
        var status = reachable ? "ok" : "degraded";
        var elapsed = DateTimeOffset.UtcNow - started;
        return reachable
            ? Ok(new { status, dbMillis = elapsed.TotalMilliseconds })
            : StatusCode(503, new { status, dbMillis = elapsed.TotalMilliseconds });
    }
}

public interface IDatabaseProbe
{
    Task<bool> CanConnectAsync(TimeSpan timeout);
}
