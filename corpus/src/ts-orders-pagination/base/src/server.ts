import express from "express";
import { listOrders } from "./orders/list.js";
import { requireCustomer } from "./session.js";

const app = express();
app.get("/orders", requireCustomer, listOrders);
app.listen(Number(process.env.PORT ?? 3000));
