/* Not written yet. */
int main(void)
{
	return 2;
}
