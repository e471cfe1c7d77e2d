//! `POST /signup`: create an account.

use crate::users::{CreateError, Users};
use argon2::password_hash::{rand_core::OsRng, PasswordHasher, SaltString};
use argon2::Argon2;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct SignupForm {
    pub email: String,
    pub password: String,
    /// YYYY-MM-DD; customers must be 18 or over.
    pub birth_date: String,
}

pub async fn signup(State(users): State<Users>, Json(form): Json<SignupForm>) -> StatusCode {
    let salt = SaltString::generate(&mut OsRng);
    let hash = match Argon2::default().hash_password(form.password.as_bytes(), &salt) {
        Ok(h) => h.to_string(),
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR,
    };
    match users.create(&form.email, &hash, &form.birth_date).await {
        Ok(id) => {
            tracing::info!(user_id = id, "account created");
            StatusCode::CREATED
        }
        Err(CreateError::EmailTaken) => StatusCode::CONFLICT,
        Err(CreateError::Database(e)) => {
            tracing::error!(error = %e, "could not create the account");
            StatusCode::INTERNAL_SERVER_ERROR
        }
    }
}
