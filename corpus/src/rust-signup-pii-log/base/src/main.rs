mod signup;
mod users;

use axum::routing::post;
use axum::Router;

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt().json().init();
    let users = users::Users::connect(&std::env::var("DATABASE_URL").expect("DATABASE_URL is set")).await;
    let app = Router::new().route("/signup", post(signup::signup)).with_state(users);
    let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await.expect("port 8080 is free");
    axum::serve(listener, app).await.expect("server runs");
}
