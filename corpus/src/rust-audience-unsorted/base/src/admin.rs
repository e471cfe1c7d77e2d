//! Lines for the admin dashboard.

use crate::billing::Plan;

/// "Pro: 42 subscribers, £210.00 a month", one line per plan.
pub fn plan_summary(plans: &[Plan]) -> Vec<String> {
    plans
        .iter()
        .map(|plan| {
            let subscribers = plan.subscribers();
            let noun = if subscribers == 1 { "subscriber" } else { "subscribers" };
            let pounds = plan.monthly_revenue_pence() as f64 / 100.0;
            format!("{}: {subscribers} {noun}, £{pounds:.2} a month", plan.name)
        })
        .collect()
}
