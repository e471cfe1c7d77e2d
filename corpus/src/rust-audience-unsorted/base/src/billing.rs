//! Paid forum plans. A plan's subscribers are paying customers; this has nothing
//! to do with topic notifications.

#[derive(Debug, Clone)]
pub struct Plan {
    pub name: String,
    pub monthly_pence: u32,
    customers: Vec<String>,
}

impl Plan {
    pub fn new(name: &str, monthly_pence: u32) -> Self {
        Plan { name: name.to_string(), monthly_pence, customers: Vec::new() }
    }

    pub fn add_customer(&mut self, email: &str) {
        self.customers.push(email.to_string());
    }

    /// How many customers pay for this plan.
    pub fn subscribers(&self) -> usize {
        self.customers.len()
    }

    pub fn monthly_revenue_pence(&self) -> u64 {
        self.subscribers() as u64 * u64::from(self.monthly_pence)
    }
}
